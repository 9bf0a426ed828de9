package unpack

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/operator-catalog/olmcat/internal/kubetest"
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

	lookup, err := Launch(ctx, clients, image, ns, WithCatalogSource(CatalogSourceRef{ns, "operators"}),
		WithToolImage("olmcat:test"), WithTimeout(5*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if !lookup.Pending() || lookup.Conditions[0].Reason != ReasonJobIncomplete {
		t.Errorf("lookup after launch = %+v, want JobIncomplete", lookup.Conditions)
	}

	managed := map[string]string{LabelManaged: "true"}
	cm := getConfigMap(t, clients, ns, name)
	if diff := cmp.Diff(managed, cm.Labels); diff != "" {
		t.Errorf("configmap labels (-want +got):\n%s", diff)
	}
	wantCSOwner := []metav1.OwnerReference{ownerRef("operators.coreos.com/v1alpha1", "CatalogSource", "operators", cs.GetUID())}
	if diff := cmp.Diff(wantCSOwner, cm.OwnerReferences); diff != "" {
		t.Errorf("configmap owners (-want +got):\n%s", diff)
	}
	cmOwner := []metav1.OwnerReference{ownerRef("v1", "ConfigMap", name, cm.UID)}

	sa, err := clients.serviceAccounts(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	role, err := clients.roles(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rb, err := clients.roleBindings(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	job := getJob(t, clients, ns, name)
	for _, o := range []metav1.Object{sa, role, rb, job} {
		if diff := cmp.Diff(cmOwner, o.GetOwnerReferences()); diff != "" {
			t.Errorf("%T owners (-want +got):\n%s", o, diff)
		}
		if o.GetLabels()[LabelManaged] != "true" {
			t.Errorf("%T labels %v", o, o.GetLabels())
		}
	}
	wantRules := []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{name}, Verbs: []string{"create", "get", "update"}}}
	if diff := cmp.Diff(wantRules, role.Rules); diff != "" {
		t.Errorf("role rules (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]rbacv1.Subject{{Kind: "ServiceAccount", Name: name, Namespace: ns}}, rb.Subjects); diff != "" {
		t.Errorf("rolebinding subjects (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: name}, rb.RoleRef); diff != "" {
		t.Errorf("rolebinding roleRef (-want +got):\n%s", diff)
	}
	assertJobSpec(t, job, image, ns, name)
}

func assertJobSpec(t *testing.T, job *batchv1.Job, image, ns, name string) {
	t.Helper()
	labels := map[string]string{LabelManaged: "true", LabelUnpackRef: name}
	if diff := cmp.Diff(labels, job.Labels); diff != "" {
		t.Errorf("job labels (-want +got):\n%s", diff)
	}
	s := job.Spec
	if *s.BackoffLimit != 3 || s.ActiveDeadlineSeconds == nil || *s.ActiveDeadlineSeconds != 300 || *s.TTLSecondsAfterFinished != 300 {
		t.Errorf("backoffLimit %d, activeDeadlineSeconds %v, ttl %d", *s.BackoffLimit, s.ActiveDeadlineSeconds, *s.TTLSecondsAfterFinished)
	}
	if s.Selector == nil {
		t.Error("the API server did not default the job's selector: is this a real API server?")
	}
	tpl := s.Template
	for k, v := range labels {
		if tpl.Labels[k] != v {
			t.Errorf("pod template label %s = %q, want %q", k, tpl.Labels[k], v)
		}
	}
	p := tpl.Spec
	if tpl.Name != name || p.RestartPolicy != corev1.RestartPolicyNever || p.ServiceAccountName != name {
		t.Errorf("template name %q, restartPolicy %s, serviceAccount %q", tpl.Name, p.RestartPolicy, p.ServiceAccountName)
	}
	if diff := cmp.Diff([]corev1.LocalObjectReference{{Name: "pull-secret"}}, p.ImagePullSecrets); diff != "" {
		t.Errorf("imagePullSecrets (-want +got):\n%s", diff)
	}
	psc := p.SecurityContext
	if psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault || !*psc.RunAsNonRoot || *psc.RunAsUser != 1001 {
		t.Errorf("pod security context %+v", psc)
	}
	if p.NodeSelector["kubernetes.io/os"] != "linux" || len(p.Tolerations) != 7 {
		t.Errorf("nodeSelector %v, %d tolerations", p.NodeSelector, len(p.Tolerations))
	}
	if len(p.Volumes) != 2 || p.Volumes[0].EmptyDir == nil || p.Volumes[1].EmptyDir == nil {
		t.Errorf("volumes %+v", p.Volumes)
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
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("containers (-want +got):\n%s", diff)
	}
}
