package unpack

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/operator-catalog/olmcat/internal/testutil/kubetest"
	"github.com/operator-catalog/olmcat/unpack/jobtool"
)

// TestServiceAccountWritesOnlyItsConfigMap authenticates as the unpack
// Job's ServiceAccount with a token from the API server: Extract into its
// ConfigMap works; every other write, and reading anything else, is
// forbidden by the Role Launch created.
func TestServiceAccountWritesOnlyItsConfigMap(t *testing.T) {
	c := kubetest.Get(t)
	clients := installCatalogSourceCRD(t, c)
	ns := c.Namespace(t)
	ctx := context.Background()
	image := "example/baz-bundle:v1.0.0"
	name := Name(image)
	_, err := Launch(ctx, clients, image, ns, testImages...)
	require.NoError(t, err, "launch")
	createConfigMap(t, c.Admin(t), ns, "other")
	saCfg := c.TokenConfig(c.ServiceAccountToken(t, ns, name))
	saWriter := configMapClient(t, saCfg)
	sa, err := NewClients(saCfg)
	require.NoError(t, err, "service account clients")
	dir := jobtool.WithBundleDir("../fixtures/bundles/small-fbb/baz-bundle-v1.0.0")
	_, err = jobtool.Extract(ctx, saWriter, ns, name, dir)
	require.NoError(t, err, "extract into its own configmap")
	_, err = jobtool.Extract(ctx, saWriter, ns, "other", dir)
	assert.True(t, jobtool.IsStatus(err, http.StatusForbidden), "extract into another configmap: %v, want Forbidden", err)
	cms := sa.configMaps(ns)
	other := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: ns}, Data: map[string]string{"x": "y"}}
	for what, call := range map[string]func() error{
		"update another configmap": func() error { _, err := cms.Update(ctx, other, metav1.UpdateOptions{}); return err },
		"create a configmap": func() error {
			_, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "new"}}, metav1.CreateOptions{})
			return err
		},
		"delete its configmap":  func() error { return cms.Delete(ctx, name, metav1.DeleteOptions{}) },
		"list configmaps":       func() error { _, err := cms.List(ctx, metav1.ListOptions{}); return err },
		"get another configmap": func() error { _, err := cms.Get(ctx, "other", metav1.GetOptions{}); return err },
		"read its job": func() error {
			_, err := sa.jobs(ns).Get(ctx, name, metav1.GetOptions{})
			return err
		},
	} {
		err := call()
		assert.True(t, apierrors.IsForbidden(err), "%s as the unpack service account: %v, want Forbidden", what, err)
	}
	assert.Empty(t, getConfigMap(t, clients, ns, "other").Data, "other configmap was written")
}
