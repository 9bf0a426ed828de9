package unpack

import (
	"context"
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/operator-catalog/olmcat/internal/kubetest"
)

// snapshot is the identity and version of every unpack object.
type snapshot map[string][2]string

func takeSnapshot(t *testing.T, clients Clients, ns, name string) snapshot {
	t.Helper()
	ctx := context.Background()
	s := snapshot{}
	add := func(kind string, o metav1.Object, err error) {
		if err != nil {
			t.Fatalf("get %s: %v", kind, err)
		}
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
		if _, err := Launch(ctx, clients, image, ns, WithToolImage("olmcat:test")); err != nil {
			t.Fatal(err)
		}
	}
	launch()
	first := takeSnapshot(t, clients, ns, name)
	launch()
	if second := takeSnapshot(t, clients, ns, name); !maps.Equal(first, second) {
		t.Fatalf("second launch changed objects:\n first %v\nsecond %v", first, second)
	}
	job := getJob(t, clients, ns, name)
	if p := job.Spec.Template.Spec.InitContainers[1].ImagePullPolicy; p != corev1.PullIfNotPresent {
		t.Errorf("digest image pulled with %s, want IfNotPresent", p)
	}
	if job.Spec.ActiveDeadlineSeconds == nil || *job.Spec.ActiveDeadlineSeconds != 600 {
		t.Errorf("default activeDeadlineSeconds = %v, want 600", job.Spec.ActiveDeadlineSeconds)
	}

	// Drift every object.
	six := int32(6)
	job.Spec.BackoffLimit = &six
	if _, err := clients.jobs(ns).Update(ctx, job, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	role, _ := clients.roles(ns).Get(ctx, name, metav1.GetOptions{})
	role.Rules = []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}}
	if _, err := clients.roles(ns).Update(ctx, role, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	rb, _ := clients.roleBindings(ns).Get(ctx, name, metav1.GetOptions{})
	rb.Subjects = []rbacv1.Subject{{Kind: "ServiceAccount", Name: "default", Namespace: ns}}
	if _, err := clients.roleBindings(ns).Update(ctx, rb, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	cm := getConfigMap(t, clients, ns, name)
	cm.Labels = map[string]string{"other": "x"}
	if _, err := clients.configMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	launch()
	after := takeSnapshot(t, clients, ns, name)
	if after["Job"][0] == first["Job"][0] {
		t.Error("drifted job was not replaced")
	}
	if got := getJob(t, clients, ns, name); *got.Spec.BackoffLimit != 3 {
		t.Errorf("replaced job backoffLimit = %d", *got.Spec.BackoffLimit)
	}
	if after["RoleBinding"][0] == first["RoleBinding"][0] {
		t.Error("drifted rolebinding was not recreated")
	}
	rb, _ = clients.roleBindings(ns).Get(ctx, name, metav1.GetOptions{})
	if len(rb.Subjects) != 1 || rb.Subjects[0].Name != name {
		t.Errorf("rolebinding subjects %v", rb.Subjects)
	}
	role, _ = clients.roles(ns).Get(ctx, name, metav1.GetOptions{})
	if after["Role"][0] != first["Role"][0] || len(role.Rules) != 2 || role.Rules[1].ResourceNames[0] != name {
		t.Errorf("role not repaired in place: %+v", role.Rules)
	}
	cm = getConfigMap(t, clients, ns, name)
	if after["ConfigMap"][0] != first["ConfigMap"][0] || cm.Labels[LabelManaged] != "true" || cm.Labels["other"] != "x" {
		t.Errorf("configmap labels %v (uid kept: %v)", cm.Labels, after["ConfigMap"][0] == first["ConfigMap"][0])
	}
	if after["ServiceAccount"] != first["ServiceAccount"] {
		t.Error("service account changed")
	}
	// Owner references of the replaced objects point at the same ConfigMap.
	if got := getJob(t, clients, ns, name).OwnerReferences[0].UID; got != types.UID(first["ConfigMap"][0]) {
		t.Errorf("replaced job owned by %s", got)
	}
}
