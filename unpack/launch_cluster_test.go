package unpack

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/operator-catalog/olmcat/internal/kubetest"
)

var crdOnce sync.Once

// installCatalogSourceCRD registers OLM's CatalogSource kind (schema-less)
// on the test API server once and waits until it is served.
func installCatalogSourceCRD(t *testing.T, c *kubetest.Cluster) Clients {
	t.Helper()
	clients, err := NewClients(c.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	crdOnce.Do(func() {
		crdGVR := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
		crd := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1",
			"kind":       "CustomResourceDefinition",
			"metadata":   map[string]any{"name": "catalogsources.operators.coreos.com"},
			"spec": map[string]any{
				"group": "operators.coreos.com",
				"scope": "Namespaced",
				"names": map[string]any{"kind": "CatalogSource", "listKind": "CatalogSourceList", "plural": "catalogsources", "singular": "catalogsource"},
				"versions": []any{map[string]any{
					"name": "v1alpha1", "served": true, "storage": true,
					"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
				}},
			},
		}}
		if _, err := clients.Dynamic.Resource(crdGVR).Create(context.Background(), crd, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create CatalogSource CRD: %v", err)
		}
	})
	// Served once a list answers.
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := clients.Dynamic.Resource(CatalogSourceGVR).Namespace("default").List(context.Background(), metav1.ListOptions{})
		if err == nil {
			return clients
		}
		if time.Now().After(deadline) {
			t.Fatalf("CatalogSource CRD not served: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func createCatalogSource(t *testing.T, clients Clients, ns, name string, secrets ...string) *unstructured.Unstructured {
	t.Helper()
	var list []any
	for _, s := range secrets {
		list = append(list, s)
	}
	cs := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "operators.coreos.com/v1alpha1",
		"kind":       "CatalogSource",
		"metadata":   map[string]any{"name": name, "namespace": ns},
		"spec":       map[string]any{"sourceType": "grpc", "image": "example/catalog:latest", "secrets": list},
	}}
	created, err := clients.Dynamic.Resource(CatalogSourceGVR).Namespace(ns).Create(context.Background(), cs, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return created
}

func ownerRef(apiVersion, kind, name string, uid types.UID) metav1.OwnerReference {
	f := false
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid, Controller: &f, BlockOwnerDeletion: &f}
}

// TestNameIsSHA256OfTheReference: the name is the hex sha256 of the image
// reference string, less its last character; tag and digest differ.
func TestNameIsSHA256OfTheReference(t *testing.T) {
	for _, image := range []string{"example/bundle:v1", "example/bundle@sha256:" + hex.EncodeToString(make([]byte, 32))} {
		sum := sha256.Sum256([]byte(image))
		if got, want := Name(image), hex.EncodeToString(sum[:])[:63]; got != want || len(got) != 63 {
			t.Errorf("Name(%q) = %q, want %q", image, got, want)
		}
	}
}

// job fetches the stored unpack Job.
func getJob(t *testing.T, clients Clients, ns, name string) *batchv1.Job {
	t.Helper()
	job, err := clients.jobs(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return job
}

func getConfigMap(t *testing.T, clients Clients, ns, name string) *corev1.ConfigMap {
	t.Helper()
	cm, err := clients.configMaps(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cm
}
