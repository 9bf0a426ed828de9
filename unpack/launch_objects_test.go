package unpack

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/operator-catalog/olmcat/internal/testutil/kubetest"
)

// containerView is what the test asserts of each unpack container.
type containerView struct {
	Name, Image string
	Command     []string
	PullPolicy  corev1.PullPolicy
	Mounts      []corev1.VolumeMount
	Env         []corev1.EnvVar
	CPU, Memory string
	NoEscalate  bool
	ReadOnly    bool
	Drop        []corev1.Capability
	TermPolicy  corev1.TerminationMessagePolicy
}

func viewContainer(c corev1.Container) containerView {
	sc := c.SecurityContext
	return containerView{
		Name: c.Name, Image: c.Image, Command: c.Command, PullPolicy: c.ImagePullPolicy,
		Mounts: c.VolumeMounts, Env: c.Env,
		CPU: c.Resources.Requests.Cpu().String(), Memory: c.Resources.Requests.Memory().String(),
		NoEscalate: sc != nil && sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation,
		ReadOnly:   sc != nil && sc.ReadOnlyRootFilesystem != nil && *sc.ReadOnlyRootFilesystem,
		Drop:       sc.Capabilities.Drop,
		TermPolicy: c.TerminationMessagePolicy,
	}
}

// TestLaunchObjects launches an unpack with a CatalogSource and asserts the
// objects the API server stored: names, labels, owner references, the
// Role's single rule, the binding, and the Job's spec.
func TestLaunchObjects(t *testing.T) {
	c := kubetest.Get(t)
	clients := installCatalogSourceCRD(t, c)
	ns := c.Namespace(t)
	ctx := context.Background()
	cs := createCatalogSource(t, clients, ns, "operators", "pull-secret")
	image := "example/etcd-bundle:v0.9.2"
	name := Name(image)

	lookup, err := Launch(ctx, clients, image, ns, launchOpts(WithCatalogSource(CatalogSourceRef{ns, "operators"}),
		WithTimeout(5*time.Minute))...)
	require.NoError(t, err, "launch")
	assert.True(t, lookup.Pending(), "lookup after launch = %+v, want pending", lookup.Conditions)
	require.NotEmpty(t, lookup.Conditions, "lookup after launch")
	assert.Equal(t, ReasonJobIncomplete, lookup.Conditions[0].Reason, "lookup after launch = %+v", lookup.Conditions)

	managed := map[string]string{LabelManaged: "true"}
	cm := getConfigMap(t, clients, ns, name)
	assert.Empty(t, cmp.Diff(managed, cm.Labels), "configmap labels (-want +got)")
	wantCSOwner := []metav1.OwnerReference{ownerRef("operators.coreos.com/v1alpha1", "CatalogSource", "operators", cs.GetUID())}
	assert.Empty(t, cmp.Diff(wantCSOwner, cm.OwnerReferences), "configmap owners (-want +got)")
	cmOwner := []metav1.OwnerReference{ownerRef("v1", "ConfigMap", name, cm.UID)}

	sa, err := clients.serviceAccounts(ns).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err, "get serviceaccount")
	role, err := clients.roles(ns).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err, "get role")
	rb, err := clients.roleBindings(ns).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err, "get rolebinding")
	job := getJob(t, clients, ns, name)
	for _, o := range []metav1.Object{sa, role, rb, job} {
		assert.Empty(t, cmp.Diff(cmOwner, o.GetOwnerReferences()), "%T owners (-want +got)", o)
		assert.Equal(t, "true", o.GetLabels()[LabelManaged], "%T labels %v", o, o.GetLabels())
	}
	wantRules := []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{name}, Verbs: []string{"create", "get", "update"}}}
	assert.Empty(t, cmp.Diff(wantRules, role.Rules), "role rules (-want +got)")
	assert.Empty(t, cmp.Diff([]rbacv1.Subject{{Kind: "ServiceAccount", Name: name, Namespace: ns}}, rb.Subjects), "rolebinding subjects (-want +got)")
	assert.Empty(t, cmp.Diff(rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: name}, rb.RoleRef), "rolebinding roleRef (-want +got)")
	assertJobSpec(t, job, image, ns, name)
}

func assertJobSpec(t testing.TB, job *batchv1.Job, image, ns, name string) {
	t.Helper()
	labels := map[string]string{LabelManaged: "true", LabelUnpackRef: name}
	assert.Empty(t, cmp.Diff(labels, job.Labels), "job labels (-want +got)")
	s := job.Spec
	assert.Equal(t, int32(3), *s.BackoffLimit, "backoffLimit")
	if assert.NotNil(t, s.ActiveDeadlineSeconds, "activeDeadlineSeconds") {
		assert.Equal(t, int64(300), *s.ActiveDeadlineSeconds, "activeDeadlineSeconds")
	}
	assert.Equal(t, int32(300), *s.TTLSecondsAfterFinished, "ttlSecondsAfterFinished")
	assert.NotNil(t, s.Selector, "the API server did not default the job's selector: is this a real API server?")
	tpl := s.Template
	for k, v := range labels {
		assert.Equal(t, v, tpl.Labels[k], "pod template label %s", k)
	}
	p := tpl.Spec
	assert.Equal(t, name, tpl.Name, "template name")
	assert.Equal(t, corev1.RestartPolicyNever, p.RestartPolicy, "restartPolicy")
	assert.Equal(t, name, p.ServiceAccountName, "serviceAccountName")
	assert.Empty(t, cmp.Diff([]corev1.LocalObjectReference{{Name: "pull-secret"}}, p.ImagePullSecrets), "imagePullSecrets (-want +got)")
	psc := p.SecurityContext
	if assert.NotNil(t, psc.SeccompProfile, "pod seccompProfile") {
		assert.Equal(t, corev1.SeccompProfileTypeRuntimeDefault, psc.SeccompProfile.Type, "pod seccompProfile")
	}
	assert.True(t, *psc.RunAsNonRoot, "pod runAsNonRoot")
	assert.Equal(t, int64(1001), *psc.RunAsUser, "pod runAsUser")
	assert.Equal(t, "linux", p.NodeSelector["kubernetes.io/os"], "nodeSelector %v", p.NodeSelector)
	assert.Len(t, p.Tolerations, 7, "tolerations")
	if assert.Len(t, p.Volumes, 2, "volumes") {
		for _, v := range p.Volumes {
			assert.NotNil(t, v.EmptyDir, "volume %s is not an emptyDir", v.Name)
		}
	}
	bundle := corev1.VolumeMount{Name: "bundle", MountPath: "/bundle"}
	util := corev1.VolumeMount{Name: "util", MountPath: "/util"}
	hard := func(v containerView) containerView {
		v.CPU, v.Memory, v.NoEscalate, v.ReadOnly = "10m", "50Mi", true, true
		v.Drop, v.TermPolicy = []corev1.Capability{"ALL"}, corev1.TerminationMessageFallbackToLogsOnError
		return v
	}
	want := []containerView{
		hard(containerView{Name: "util", Image: "olmcat:test", PullPolicy: corev1.PullIfNotPresent,
			Command: []string{"/bin/olmcat", "bundle", "copy", "--self", "/util/olmcat"}, Mounts: []corev1.VolumeMount{util}}),
		hard(containerView{Name: "pull", Image: image, PullPolicy: corev1.PullAlways,
			Command: []string{"/util/olmcat", "bundle", "copy", "/bundle"}, Mounts: []corev1.VolumeMount{bundle, util}}),
		hard(containerView{Name: "extract", Image: "olmcat:test", PullPolicy: corev1.PullIfNotPresent,
			Command: []string{"/bin/olmcat", "bundle", "extract", "-m", "/bundle", "-n", ns, "-c", name, "-z"},
			Env:     []corev1.EnvVar{{Name: "CONTAINER_IMAGE", Value: image}}, Mounts: []corev1.VolumeMount{bundle}}),
	}
	var got []containerView
	for _, c := range append(append([]corev1.Container{}, p.InitContainers...), p.Containers...) {
		got = append(got, viewContainer(c))
	}
	assert.Empty(t, cmp.Diff(want, got), "containers (-want +got)")
}
