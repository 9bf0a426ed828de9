package unpack

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// CatalogSourceGVR is the resource of OLM's CatalogSource.
var CatalogSourceGVR = schema.GroupVersionResource{Group: "operators.coreos.com", Version: "v1alpha1", Resource: "catalogsources"}

// Clients are the API clients Launch and Lookup use: the typed clientset
// for core, RBAC and batch objects and a dynamic client for OLM's
// CatalogSource, whose types this module does not import.
type Clients struct {
	Kube    kubernetes.Interface
	Dynamic dynamic.Interface
}

// NewClients builds Clients from a REST config. API warnings go to
// cfg.WarningHandler; without one they are dropped (a library does not
// log).
func NewClients(cfg *rest.Config) (Clients, error) {
	if cfg.WarningHandler == nil {
		cfg = rest.CopyConfig(cfg)
		cfg.WarningHandler = rest.NoWarnings{}
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return Clients{}, fmt.Errorf("kubernetes client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return Clients{}, fmt.Errorf("dynamic client: %w", err)
	}
	return Clients{Kube: kube, Dynamic: dyn}, nil
}

// CatalogSourceRef names a CatalogSource.
type CatalogSourceRef struct {
	Namespace, Name string
}

// String returns namespace/name.
func (r CatalogSourceRef) String() string { return r.Namespace + "/" + r.Name }

// getCatalogSource fetches the CatalogSource ref names.
func (c Clients) getCatalogSource(ctx context.Context, ref CatalogSourceRef) (*unstructured.Unstructured, error) {
	if c.Dynamic == nil {
		return nil, fmt.Errorf("catalogsource %s: no dynamic client", ref)
	}
	return c.Dynamic.Resource(CatalogSourceGVR).Namespace(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
}
