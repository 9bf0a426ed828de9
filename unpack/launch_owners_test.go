package unpack

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/operator-catalog/olmcat/internal/testutil/kubetest"
	"github.com/operator-catalog/olmcat/unpack/jobtool"
)

// TestLaunchWithoutCatalogSource: pull secrets can be given without a
// CatalogSource; the ConfigMap owns the ServiceAccount, Role, RoleBinding
// and Job, so deleting it removes the rest; Cleanup removes all five
// once the bundle is loaded.
func TestLaunchWithoutCatalogSource(t *testing.T) {
	c := kubetest.Get(t)
	clients := installCatalogSourceCRD(t, c)
	ns := c.Namespace(t)
	ctx := context.Background()
	image := "example/owned-bundle:v1"
	name := Name(image)
	_, err := Launch(ctx, clients, image, ns, launchOpts(WithPullSecrets("regcred", "mirror"), WithPullSecrets("regcred"))...)
	require.NoError(t, err)
	job := getJob(t, clients, ns, name)
	require.Equal(t, []corev1.LocalObjectReference{{Name: "regcred"}, {Name: "mirror"}}, job.Spec.Template.Spec.ImagePullSecrets)
	cm := getConfigMap(t, clients, ns, name)
	require.Empty(t, cm.OwnerReferences)
	want := []metav1.OwnerReference{ownerRef("v1", "ConfigMap", name, cm.UID)}
	sa, err := clients.serviceAccounts(ns).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	role, err := clients.roles(ns).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	rb, err := clients.roleBindings(ns).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	for kind, o := range map[string]metav1.Object{"ServiceAccount": sa, "Role": role, "RoleBinding": rb, "Job": job} {
		require.Equal(t, want, o.GetOwnerReferences(), kind)
	}

	_, err = jobtool.Extract(ctx, adminWriter(t), ns, name, jobtool.WithBundleDir("../fixtures/bundles/small-fbb/foo-bundle-v0.1.0"), jobtool.WithGzip(true))
	require.NoError(t, err)
	kubetest.CompleteJob(t, c.Admin(t), ns, name)
	l, err := Lookup(ctx, clients, image, ns)
	require.NoError(t, err)
	requireUnpacked(t, l, "foo.v0.1.0", "before cleanup")
	require.NoError(t, Cleanup(ctx, clients, image, ns))
	requireNoUnpackObjects(t, clients, ns, name)
	require.NoError(t, Cleanup(ctx, clients, image, ns), "cleanup of nothing")
}

// TestLaunchKeepsCatalogSecretsWithoutCatalogSource: a re-run without the
// CatalogSource on objects it owns keeps the CatalogSource's pull secrets
// (it used to recreate the Job without them).
func TestLaunchKeepsCatalogSecretsWithoutCatalogSource(t *testing.T) {
	c := kubetest.Get(t)
	clients := installCatalogSourceCRD(t, c)
	ns := c.Namespace(t)
	ctx := context.Background()
	createCatalogSource(t, clients, ns, "catalog", "catalog-pull")
	image := "example/secret-bundle:v1"
	name := Name(image)
	_, err := Launch(ctx, clients, image, ns, launchOpts(WithCatalogSource(CatalogSourceRef{ns, "catalog"}))...)
	require.NoError(t, err)
	job := getJob(t, clients, ns, name)
	require.Equal(t, []corev1.LocalObjectReference{{Name: "catalog-pull"}}, job.Spec.Template.Spec.ImagePullSecrets)
	_, err = Launch(ctx, clients, image, ns, testImages...)
	require.NoError(t, err)
	again := getJob(t, clients, ns, name)
	require.Equal(t, job.UID, again.UID, "the Job was replaced")
	require.Equal(t, []corev1.LocalObjectReference{{Name: "catalog-pull"}}, again.Spec.Template.Spec.ImagePullSecrets)
}
