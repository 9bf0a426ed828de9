package unpack

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/operator-catalog/olmcat/internal/testutil/kubetest"
)

// snapshot is the identity and version of every unpack object.
type snapshot map[string][2]string

func takeSnapshot(t testing.TB, clients Clients, ns, name string) snapshot {
	t.Helper()
	ctx := context.Background()
	s := snapshot{}
	add := func(kind string, o metav1.Object, err error) {
		t.Helper()
		require.NoError(t, err, "get %s %s/%s", kind, ns, name)
		s[kind] = [2]string{string(o.GetUID()), o.GetResourceVersion()}
	}
	cm, err := clients.configMaps(ns).Get(ctx, name, metav1.GetOptions{})
	add("ConfigMap", cm, err)
	sa, err := clients.serviceAccounts(ns).Get(ctx, name, metav1.GetOptions{})
	add("ServiceAccount", sa, err)
	role, err := clients.roles(ns).Get(ctx, name, metav1.GetOptions{})
	add("Role", role, err)
	rb, err := clients.roleBindings(ns).Get(ctx, name, metav1.GetOptions{})
	add("RoleBinding", rb, err)
	job, err := clients.jobs(ns).Get(ctx, name, metav1.GetOptions{})
	add("Job", job, err)
	return s
}

// TestLaunchIdempotent: a second Launch changes nothing; drift is repaired:
// a Job whose spec changed is replaced, a Role that lost its rule gets it
// back, a RoleBinding bound elsewhere is recreated, a ConfigMap that lost
// its label is relabelled in place.
func TestLaunchIdempotent(t *testing.T) {
	c := kubetest.Get(t)
	clients := installCatalogSourceCRD(t, c)
	ns := c.Namespace(t)
	ctx := context.Background()
	image := "example/bundle@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	name := Name(image)
	launch := func() {
		t.Helper()
		_, err := Launch(ctx, clients, image, ns, testImages...)
		require.NoError(t, err, "launch")
	}
	launch()
	first := takeSnapshot(t, clients, ns, name)
	launch()
	require.Equal(t, first, takeSnapshot(t, clients, ns, name), "second launch changed objects")
	job := getJob(t, clients, ns, name)
	assert.Equal(t, corev1.PullIfNotPresent, job.Spec.Template.Spec.InitContainers[1].ImagePullPolicy, "pull policy of a digest image")
	if assert.NotNil(t, job.Spec.ActiveDeadlineSeconds, "default activeDeadlineSeconds") {
		assert.Equal(t, int64(600), *job.Spec.ActiveDeadlineSeconds, "default activeDeadlineSeconds")
	}

	// Drift every object.
	six := int32(6)
	job.Spec.BackoffLimit = &six
	_, err := clients.jobs(ns).Update(ctx, job, metav1.UpdateOptions{})
	require.NoError(t, err, "drift job")
	role, err := clients.roles(ns).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err, "get role")
	role.Rules = []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}}
	_, err = clients.roles(ns).Update(ctx, role, metav1.UpdateOptions{})
	require.NoError(t, err, "drift role")
	rb, err := clients.roleBindings(ns).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err, "get rolebinding")
	rb.Subjects = []rbacv1.Subject{{Kind: "ServiceAccount", Name: "default", Namespace: ns}}
	_, err = clients.roleBindings(ns).Update(ctx, rb, metav1.UpdateOptions{})
	require.NoError(t, err, "drift rolebinding")
	cm := getConfigMap(t, clients, ns, name)
	cm.Labels = map[string]string{"other": "x"}
	_, err = clients.configMaps(ns).Update(ctx, cm, metav1.UpdateOptions{})
	require.NoError(t, err, "drift configmap")

	launch()
	after := takeSnapshot(t, clients, ns, name)
	assert.NotEqual(t, first["Job"][0], after["Job"][0], "drifted job was not replaced")
	assert.Equal(t, int32(3), *getJob(t, clients, ns, name).Spec.BackoffLimit, "replaced job backoffLimit")
	assert.NotEqual(t, first["RoleBinding"][0], after["RoleBinding"][0], "drifted rolebinding was not recreated")
	rb, err = clients.roleBindings(ns).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err, "get rolebinding")
	if assert.Len(t, rb.Subjects, 1, "rolebinding subjects") {
		assert.Equal(t, name, rb.Subjects[0].Name, "rolebinding subject")
	}
	role, err = clients.roles(ns).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err, "get role")
	assert.Equal(t, first["Role"][0], after["Role"][0], "role not repaired in place")
	if assert.Len(t, role.Rules, 2, "repaired role rules") && assert.NotEmpty(t, role.Rules[1].ResourceNames, "repaired role rule") {
		assert.Equal(t, name, role.Rules[1].ResourceNames[0], "repaired role rule")
	}
	cm = getConfigMap(t, clients, ns, name)
	assert.Equal(t, first["ConfigMap"][0], after["ConfigMap"][0], "configmap not relabelled in place")
	assert.Equal(t, "true", cm.Labels[LabelManaged], "configmap labels %v", cm.Labels)
	assert.Equal(t, "x", cm.Labels["other"], "configmap labels %v", cm.Labels)
	assert.Equal(t, first["ServiceAccount"], after["ServiceAccount"], "service account changed")
	// Owner references of the replaced objects point at the same ConfigMap.
	owners := getJob(t, clients, ns, name).OwnerReferences
	require.NotEmpty(t, owners, "replaced job owners")
	assert.Equal(t, types.UID(first["ConfigMap"][0]), owners[0].UID, "replaced job owner")
}
