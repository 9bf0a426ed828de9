package unpack

import (
	"context"
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/operator-catalog/olmcat/internal/kubetest"
)

// The cluster tests share one API server (started on first use).
func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

// createConfigMap creates an empty ConfigMap as Launch would, for tests of
// Extract alone.
func createConfigMap(t *testing.T, client kubernetes.Interface, namespace, name string) *corev1.ConfigMap {
	t.Helper()
	cm, err := client.CoreV1().ConfigMaps(namespace).Create(context.Background(),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cm
}
