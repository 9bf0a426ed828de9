package unpack

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/operator-catalog/olmcat/internal/testutil/kubetest"
	"github.com/operator-catalog/olmcat/unpack/jobtool"
)

// The cluster tests share one API server (started on first use).
func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

// createConfigMap creates an empty ConfigMap as Launch would, for tests of
// Extract alone.
func createConfigMap(t testing.TB, client kubernetes.Interface, namespace, name string) *corev1.ConfigMap {
	t.Helper()
	cm, err := client.CoreV1().ConfigMaps(namespace).Create(context.Background(),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	require.NoError(t, err, "create configmap %s/%s", namespace, name)
	return cm
}

// configMapClient is jobtool.Extract's client authenticated as cfg.
func configMapClient(t testing.TB, cfg *rest.Config) *jobtool.ConfigMaps {
	t.Helper()
	w, err := NewConfigMapClient(cfg)
	require.NoError(t, err, "configmap client")
	return w
}

// adminWriter is jobtool.Extract's client as the test cluster's admin.
func adminWriter(t testing.TB) *jobtool.ConfigMaps {
	t.Helper()
	return configMapClient(t, kubetest.Get(t).AdminConfig())
}
func writeFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(content), 0o644))
	}
}
