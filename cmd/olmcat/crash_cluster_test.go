package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/operator-catalog/olmcat/internal/testutil/kubetest"
)

// TestCrashHarnessBundleLocal puts bundle local under the crash harness:
// replacing a stored bundle archive with --force, killed at every step,
// leaves the previous archive or the new one, and the rerun the new one.
func TestCrashHarnessBundleLocal(t *testing.T) {
	bin := buildCrashBinary(t)
	c := kubetest.Get(t)
	ns := c.Namespace(t)
	admin := c.Kubeconfig(t, c.AdminConfig())
	for name, dir := range map[string]string{
		"foo": "../../fixtures/bundles/small-fbb/foo-bundle-v0.1.0/manifests",
		"old": "../../fixtures/bundles/small-fbb/foo-bundle-v0.2.0/manifests",
	} {
		_, err := c.Admin(t).CoreV1().ConfigMaps(ns).Create(context.Background(),
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: readManifests(t, dir)}, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	runCrashCase(t, bin, crashCase{
		name: "bundle local --force",
		setup: func(t *testing.T, bin, dir string) ([]string, string, []string) {
			root := filepath.Join(dir, "bundles")
			// The previous archive: another bundle stored under the same name.
			stderr, code := crashRun{bin: bin, tmp: filepath.Join(dir, "tmp")}.run(t,
				"bundle", "local", ns+"/old", "--name", "foo", "--root", root, "--kubeconfig", admin)
			require.Equal(t, 0, code, stderr)
			return []string{"bundle", "local", ns + "/foo", "--root", root, "--kubeconfig", admin, "--force"},
				filepath.Join(root, "foo.tar.gz"), nil
		},
	})
}
