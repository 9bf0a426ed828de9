package kubetest

import (
	"context"
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// TestCluster checks what the cluster tests rely on: an admin that can do
// anything, service-account tokens that RBAC actually limits, and the API
// server's 1 MiB ConfigMap limit.
func TestCluster(t *testing.T) {
	c := Get(t)
	ctx := context.Background()
	ns := c.Namespace(t)
	admin := c.Admin(t)

	big := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "big"}, Data: map[string]string{"a": strings.Repeat("x", 1<<20+1)}}
	if _, err := admin.CoreV1().ConfigMaps(ns).Create(ctx, big, metav1.CreateOptions{}); err == nil || !strings.Contains(err.Error(), "1048576") {
		t.Fatalf("creating a ConfigMap over 1 MiB: %v, want the size limit error", err)
	}

	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "nobody"}}
	if _, err := admin.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	token := c.ServiceAccountToken(t, ns, "nobody")
	nobody, err := kubernetes.NewForConfig(c.TokenConfig(token))
	if err != nil {
		t.Fatal(err)
	}
	_, err = nobody.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("listing ConfigMaps as a service account without a role: %v, want Forbidden", err)
	}
	if !strings.Contains(err.Error(), "system:serviceaccount:"+ns+":nobody") {
		t.Errorf("forbidden error %q does not name the service account", err)
	}
}
