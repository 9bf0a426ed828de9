package unpack

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/operator-catalog/olmcat/internal/testutil/kubetest"
)

var crdOnce sync.Once

// installCatalogSourceCRD registers OLM's CatalogSource kind (schema-less)
// on the test API server once and waits until it is served.
func installCatalogSourceCRD(t testing.TB, c *kubetest.Cluster) Clients {
	t.Helper()
	clients, err := NewClients(c.AdminConfig())
	require.NoError(t, err, "admin clients")
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
		_, err := clients.Dynamic.Resource(crdGVR).Create(context.Background(), crd, metav1.CreateOptions{})
		require.NoError(t, err, "create CatalogSource CRD")
	})
	// Served once a list answers.
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := clients.Dynamic.Resource(CatalogSourceGVR).Namespace("default").List(context.Background(), metav1.ListOptions{})
		if err == nil {
			return clients
		}
		if time.Now().After(deadline) {
			require.NoError(t, err, "CatalogSource CRD not served")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func createCatalogSource(t testing.TB, clients Clients, ns, name string, secrets ...string) *unstructured.Unstructured {
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
	require.NoError(t, err, "create CatalogSource %s/%s", ns, name)
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
		got := Name(image)
		assert.Equal(t, hex.EncodeToString(sum[:])[:63], got, "Name(%q)", image)
		assert.Len(t, got, 63, "Name(%q)", image)
	}
}

// job fetches the stored unpack Job.
func getJob(t testing.TB, clients Clients, ns, name string) *batchv1.Job {
	t.Helper()
	job, err := clients.jobs(ns).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err, "get job %s/%s", ns, name)
	return job
}

func getConfigMap(t testing.TB, clients Clients, ns, name string) *corev1.ConfigMap {
	t.Helper()
	cm, err := clients.configMaps(ns).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err, "get configmap %s/%s", ns, name)
	return cm
}
