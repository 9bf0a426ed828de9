package jobtool

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/operator-catalog/olmcat/internal/testutil/kubetest"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

// TestInClusterExtract runs Extract as the unpack Job's pod does, through
// the client the slim build uses: the API server's address from the
// environment, its CA and a service account token from the mounted files
// (here written by the test), the token read per request.
func TestInClusterExtract(t *testing.T) {
	c := kubetest.Get(t)
	ns := c.Namespace(t)
	ctx := context.Background()
	admin := c.Admin(t)
	_, err := admin.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "unpacker"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = admin.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "bundle", Labels: map[string]string{"keep": "me"}}}, metav1.CreateOptions{})
	require.NoError(t, err)

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ca.crt"), c.CAData, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "token"), []byte(c.ServiceAccountToken(t, ns, "unpacker")+"\n"), 0o600))
	u, err := url.Parse(c.Host)
	require.NoError(t, err)
	host, port, err := net.SplitHostPort(u.Host)
	require.NoError(t, err)
	client, err := inCluster(dir, host, port)
	require.NoError(t, err)

	// The service account has no rights yet: the API server says so.
	bundle := WithBundleDir("../../fixtures/bundles/small-fbb/foo-bundle-v0.1.0")
	_, err = Extract(ctx, client, ns, "bundle", bundle)
	require.True(t, IsStatus(err, http.StatusForbidden), "extract without rights: %v", err)

	// With the admin's token (the file is read again for each request).
	require.NoError(t, os.WriteFile(filepath.Join(dir, "token"), []byte(c.AdminConfig().BearerToken), 0o600))
	n, err := Extract(ctx, client, ns, "bundle", bundle, WithGzip(true), WithSourceImage("example/foo-bundle:v0.1.0"))
	require.NoError(t, err)
	cm, err := admin.CoreV1().ConfigMaps(ns).Get(ctx, "bundle", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, n, len(cm.BinaryData))
	require.Equal(t, 3, n) // two manifests and dependencies.yaml
	require.Equal(t, "me", cm.Labels["keep"], "fields Extract does not set are kept")
	require.Equal(t, EncodingGzipBase64, cm.Annotations[AnnotationContentEncoding])
	require.Equal(t, "foo", cm.Annotations["operators.operatorframework.io.bundle.package.v1"])

	_, err = inCluster(dir, "", "")
	require.ErrorContains(t, err, "not running in a pod")
}
