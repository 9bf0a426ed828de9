package unpack

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/operator-catalog/olmcat/internal/testutil/kubetest"
)

// TestLaunchReplacesJobWhenFieldsAreRemoved: a Job is compared with the
// one Launch builds on every field Launch sets, including the ones the new
// spec leaves unset: a deadline removed (--timeout 0) or shortened, a pull
// secret removed from the CatalogSource. An unchanged spec keeps the Job.
func TestLaunchReplacesJobWhenFieldsAreRemoved(t *testing.T) {
	c := kubetest.Get(t)
	clients := installCatalogSourceCRD(t, c)
	ns := c.Namespace(t)
	ctx := context.Background()
	createCatalogSource(t, clients, ns, "catalog", "pull-secret")
	image := "example/drift-bundle:v1"
	name := Name(image)
	launch := func(timeout time.Duration) {
		t.Helper()
		_, err := Launch(ctx, clients, image, ns, launchOpts(WithCatalogSource(CatalogSourceRef{ns, "catalog"}), WithTimeout(timeout))...)
		require.NoError(t, err)
	}
	deadline := func() *int64 { return getJob(t, clients, ns, name).Spec.ActiveDeadlineSeconds }

	launch(10 * time.Minute)
	require.Equal(t, int64(600), *deadline())
	launch(5 * time.Minute)
	require.Equal(t, int64(300), *deadline())
	launch(0)
	require.Nil(t, deadline(), "--timeout 0 kept the old deadline")

	require.Equal(t, []corev1.LocalObjectReference{{Name: "pull-secret"}}, getJob(t, clients, ns, name).Spec.Template.Spec.ImagePullSecrets)
	cs, err := clients.Dynamic.Resource(CatalogSourceGVR).Namespace(ns).Get(ctx, "catalog", metav1.GetOptions{})
	require.NoError(t, err)
	cs.Object["spec"].(map[string]any)["secrets"] = []any{}
	_, err = clients.Dynamic.Resource(CatalogSourceGVR).Namespace(ns).Update(ctx, cs, metav1.UpdateOptions{})
	require.NoError(t, err)
	launch(0)
	require.Empty(t, getJob(t, clients, ns, name).Spec.Template.Spec.ImagePullSecrets, "removed pull secret kept")

	uid := getJob(t, clients, ns, name).UID
	launch(0)
	require.Equal(t, uid, getJob(t, clients, ns, name).UID, "a Job matching the spec was replaced")
}

// TestLaunchReownsAfterConfigMapRecreated: when the unpack ConfigMap is
// deleted and unpack runs again, the ServiceAccount, Role and RoleBinding
// are owned by the new ConfigMap, not the deleted one (whose garbage
// collection would delete them under the new Job).
func TestLaunchReownsAfterConfigMapRecreated(t *testing.T) {
	c := kubetest.Get(t)
	clients := installCatalogSourceCRD(t, c)
	ns := c.Namespace(t)
	ctx := context.Background()
	image := "example/reowned-bundle:v1"
	name := Name(image)
	_, err := Launch(ctx, clients, image, ns, testImages...)
	require.NoError(t, err)
	old := getConfigMap(t, clients, ns, name).UID
	require.NoError(t, clients.configMaps(ns).Delete(ctx, name, metav1.DeleteOptions{}))

	_, err = Launch(ctx, clients, image, ns, testImages...)
	require.NoError(t, err)
	cm := getConfigMap(t, clients, ns, name)
	require.NotEqual(t, old, cm.UID)
	want := []metav1.OwnerReference{ownerRef("v1", "ConfigMap", name, cm.UID)}
	sa, err := clients.serviceAccounts(ns).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	role, err := clients.roles(ns).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	rb, err := clients.roleBindings(ns).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	for kind, o := range map[string]metav1.Object{"ServiceAccount": sa, "Role": role, "RoleBinding": rb, "Job": getJob(t, clients, ns, name)} {
		require.Equal(t, want, o.GetOwnerReferences(), kind)
	}
}

// requireNoUnpackObjects asserts that none of the five unpack objects of
// name exists.
func requireNoUnpackObjects(t testing.TB, clients Clients, ns, name string) {
	t.Helper()
	ctx := context.Background()
	k := clients
	for kind, get := range map[string]func() error{
		"ConfigMap":      func() error { _, err := k.configMaps(ns).Get(ctx, name, metav1.GetOptions{}); return err },
		"ServiceAccount": func() error { _, err := k.serviceAccounts(ns).Get(ctx, name, metav1.GetOptions{}); return err },
		"Role":           func() error { _, err := k.roles(ns).Get(ctx, name, metav1.GetOptions{}); return err },
		"RoleBinding":    func() error { _, err := k.roleBindings(ns).Get(ctx, name, metav1.GetOptions{}); return err },
		"Job":            func() error { _, err := k.jobs(ns).Get(ctx, name, metav1.GetOptions{}); return err },
	} {
		err := get()
		assert.True(t, apierrors.IsNotFound(err), "%s %s/%s: %v, want NotFound", kind, ns, name, err)
	}
}

// TestLaunchRefusesInvalidReference: a bundle or tool image reference that
// does not parse is refused before anything is created.
func TestLaunchRefusesInvalidReference(t *testing.T) {
	c := kubetest.Get(t)
	clients := installCatalogSourceCRD(t, c)
	ns := c.Namespace(t)
	for _, tc := range []struct {
		image string
		opts  []LaunchOption
		want  string
	}{
		{image: " example.com/x/y:v1", want: `bundle image " example.com/x/y:v1" is not an image reference`},
		{image: "NOT A VALID REF!!", want: `bundle image "NOT A VALID REF!!" is not an image reference`},
		{image: "example.com/x/y:v1", opts: []LaunchOption{WithUtilImage("olmcat:la test"), WithOpmImage("olmcat:test")}, want: `util image "olmcat:la test" is not an image reference`},
	} {
		_, err := Launch(context.Background(), clients, tc.image, ns, append(launchOpts(), tc.opts...)...)
		require.ErrorContains(t, err, tc.want)
		requireNoUnpackObjects(t, clients, ns, Name(tc.image))
	}
}

// restrictedClients returns clients authenticated as a new ServiceAccount
// of ns holding rules.
func restrictedClients(t testing.TB, c *kubetest.Cluster, ns string, rules ...rbacv1.PolicyRule) Clients {
	t.Helper()
	ctx := context.Background()
	admin := c.Admin(t)
	meta := metav1.ObjectMeta{Name: "deployer", Namespace: ns}
	_, err := admin.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: meta}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = admin.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{ObjectMeta: meta, Rules: rules}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = admin.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: meta,
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "deployer", Namespace: ns}},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "deployer"},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	clients, err := NewClients(c.TokenConfig(c.ServiceAccountToken(t, ns, "deployer")))
	require.NoError(t, err)
	return clients
}

// TestLaunchChecksAccessFirst: a user (a ServiceAccount token) who may
// create ConfigMaps but not ServiceAccounts is told every right it lacks,
// and nothing is created.
func TestLaunchChecksAccessFirst(t *testing.T) {
	c := kubetest.Get(t)
	admin := installCatalogSourceCRD(t, c)
	ns := c.Namespace(t)
	all := []string{"create", "get", "update", "delete", "list"}
	user := restrictedClients(t, c, ns,
		rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps", "pods"}, Verbs: all},
		rbacv1.PolicyRule{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"roles", "rolebindings"}, Verbs: all},
		rbacv1.PolicyRule{APIGroups: []string{"batch"}, Resources: []string{"jobs"}, Verbs: []string{"create", "get"}},
	)
	image := "example/denied-bundle:v1"
	_, err := Launch(context.Background(), user, image, ns, testImages...)
	var denied *AccessError
	require.True(t, errors.As(err, &denied), "error %v", err)
	require.Equal(t, []string{"create serviceaccounts", "get serviceaccounts", "update serviceaccounts", "list jobs.batch", "delete jobs.batch"}, denied.Denied)
	require.ErrorContains(t, err, "not allowed in namespace "+ns)
	requireNoUnpackObjects(t, admin, ns, Name(image))
}

// TestLaunchUndoesFailedRun: when a step fails although the rights are
// there (here a quota the API server cannot yet account for refuses the
// Job), the objects this run created are deleted again; an object that
// existed before stays.
func TestLaunchUndoesFailedRun(t *testing.T) {
	c := kubetest.Get(t)
	clients := installCatalogSourceCRD(t, c)
	ns := c.Namespace(t)
	ctx := context.Background()
	image := "example/quota-bundle:v1"
	name := Name(image)
	// No quota controller runs: the test writes the quota's status.
	quotas := c.Admin(t).CoreV1().ResourceQuotas(ns)
	none := corev1.ResourceList{"count/jobs.batch": resource.MustParse("0")}
	quota, err := quotas.Create(ctx, &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "no-jobs"},
		Spec:       corev1.ResourceQuotaSpec{Hard: none},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	quota.Status = corev1.ResourceQuotaStatus{Hard: none, Used: none}
	_, err = quotas.UpdateStatus(ctx, quota, metav1.UpdateOptions{})
	require.NoError(t, err)

	_, err = Launch(ctx, clients, image, ns, testImages...)
	require.ErrorContains(t, err, "create job")
	requireNoUnpackObjects(t, clients, ns, name)

	// A ServiceAccount that was there before the run is not this run's.
	sa, err := clients.serviceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = Launch(ctx, clients, image, ns, testImages...)
	require.ErrorContains(t, err, "create job")
	kept, err := clients.serviceAccounts(ns).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, sa.UID, kept.UID)
	_, err = clients.configMaps(ns).Get(ctx, name, metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "configmap of the failed run: %v", err)
}
