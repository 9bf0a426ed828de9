package kubetest

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	_, err := admin.CoreV1().ConfigMaps(ns).Create(ctx, big, metav1.CreateOptions{})
	require.ErrorContains(t, err, "1048576", "creating a ConfigMap over 1 MiB: want the size limit error")

	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "nobody"}}
	_, err = admin.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{})
	require.NoError(t, err, "create serviceaccount nobody")
	token := c.ServiceAccountToken(t, ns, "nobody")
	nobody, err := kubernetes.NewForConfig(c.TokenConfig(token))
	require.NoError(t, err, "clientset for serviceaccount nobody")
	_, err = nobody.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	require.True(t, apierrors.IsForbidden(err), "listing ConfigMaps as a service account without a role: %v, want Forbidden", err)
	assert.ErrorContains(t, err, "system:serviceaccount:"+ns+":nobody", "forbidden error does not name the service account")
}
