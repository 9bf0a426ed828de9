package unpack

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/operator-catalog/olmcat/unpack/jobtool"
)

// CatalogSourceGVR is the resource of OLM's CatalogSource.
var CatalogSourceGVR = schema.GroupVersionResource{Group: "operators.coreos.com", Version: "v1alpha1", Resource: "catalogsources"}

// Clients are the API clients Launch and Lookup use: client-go's dynamic
// client, through which they read and write the typed core, batch and RBAC
// objects and OLM's CatalogSource. (client-go's typed clientset links
// every API group of Kubernetes and would more than double the binary.)
type Clients struct {
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
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return Clients{}, fmt.Errorf("dynamic client: %w", err)
	}
	return Clients{Dynamic: dyn}, nil
}

// NewConfigMapClient returns the ConfigMap client of jobtool.Extract for
// a REST config: the config's host and its authentication (tokens,
// certificates, exec plugins).
func NewConfigMapClient(cfg *rest.Config) (*jobtool.ConfigMaps, error) {
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("http client: %w", err)
	}
	host, _, err := rest.DefaultServerUrlFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("api server url: %w", err)
	}
	return &jobtool.ConfigMaps{Host: host.String(), Client: hc}, nil
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

// ConfigMap returns the ConfigMap namespace/name.
func (c Clients) ConfigMap(ctx context.Context, namespace, name string) (*corev1.ConfigMap, error) {
	return c.configMaps(namespace).Get(ctx, name, metav1.GetOptions{})
}

// objects is a typed view of one resource through the dynamic client.
type objects[T any] struct {
	ri         dynamic.ResourceInterface
	apiVersion string
	kind       string
}

func newObjects[T any](c Clients, gv schema.GroupVersion, resource, kind, namespace string) objects[T] {
	r := c.Dynamic.Resource(gv.WithResource(resource))
	o := objects[T]{ri: r, apiVersion: gv.String(), kind: kind}
	if namespace != "" {
		o.ri = r.Namespace(namespace)
	}
	return o
}

func (c Clients) configMaps(ns string) objects[corev1.ConfigMap] {
	return newObjects[corev1.ConfigMap](c, corev1.SchemeGroupVersion, "configmaps", "ConfigMap", ns)
}

func (c Clients) serviceAccounts(ns string) objects[corev1.ServiceAccount] {
	return newObjects[corev1.ServiceAccount](c, corev1.SchemeGroupVersion, "serviceaccounts", "ServiceAccount", ns)
}

func (c Clients) pods(ns string) objects[corev1.Pod] {
	return newObjects[corev1.Pod](c, corev1.SchemeGroupVersion, "pods", "Pod", ns)
}

func (c Clients) roles(ns string) objects[rbacv1.Role] {
	return newObjects[rbacv1.Role](c, rbacv1.SchemeGroupVersion, "roles", "Role", ns)
}

func (c Clients) roleBindings(ns string) objects[rbacv1.RoleBinding] {
	return newObjects[rbacv1.RoleBinding](c, rbacv1.SchemeGroupVersion, "rolebindings", "RoleBinding", ns)
}

func (c Clients) jobs(ns string) objects[batchv1.Job] {
	return newObjects[batchv1.Job](c, batchv1.SchemeGroupVersion, "jobs", "Job", ns)
}

func (c Clients) accessReviews() objects[authorizationv1.SelfSubjectAccessReview] {
	return newObjects[authorizationv1.SelfSubjectAccessReview](c, authorizationv1.SchemeGroupVersion, "selfsubjectaccessreviews", "SelfSubjectAccessReview", "")
}

func (o objects[T]) typed(u *unstructured.Unstructured, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	out := new(T)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out); err != nil {
		return nil, fmt.Errorf("decode %s: %w", o.kind, err)
	}
	return out, nil
}

func (o objects[T]) unstructured(obj *T) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", o.kind, err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(o.apiVersion)
	u.SetKind(o.kind)
	return u, nil
}

// Get returns the object name.
func (o objects[T]) Get(ctx context.Context, name string, opts metav1.GetOptions) (*T, error) {
	return o.typed(o.ri.Get(ctx, name, opts))
}

// Create creates obj and returns it as stored.
func (o objects[T]) Create(ctx context.Context, obj *T, opts metav1.CreateOptions) (*T, error) {
	u, err := o.unstructured(obj)
	if err != nil {
		return nil, err
	}
	return o.typed(o.ri.Create(ctx, u, opts))
}

// Update replaces obj and returns it as stored.
func (o objects[T]) Update(ctx context.Context, obj *T, opts metav1.UpdateOptions) (*T, error) {
	u, err := o.unstructured(obj)
	if err != nil {
		return nil, err
	}
	return o.typed(o.ri.Update(ctx, u, opts))
}

// Delete deletes the object name.
func (o objects[T]) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	return o.ri.Delete(ctx, name, opts)
}

// List returns the objects opts select.
func (o objects[T]) List(ctx context.Context, opts metav1.ListOptions) ([]T, error) {
	list, err := o.ri.List(ctx, opts)
	if err != nil {
		return nil, err
	}
	out := make([]T, len(list.Items))
	for i := range list.Items {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(list.Items[i].Object, &out[i]); err != nil {
			return nil, fmt.Errorf("decode %s: %w", o.kind, err)
		}
	}
	return out, nil
}
