package jobtool

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func writeFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(content), 0o644))
	}
}

// TestCopyBundle: the manifests and annotations.yaml are copied, as OLM's
// cpb does; other metadata files (dependencies.yaml) only with allMetadata.
func TestCopyBundle(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
	}{
		{"default layout", map[string]string{
			"metadata/annotations.yaml":  "annotations:\n  operators.operatorframework.io.bundle.package.v1: p\n",
			"metadata/dependencies.yaml": "dependencies: []\n",
			"manifests/csv.yaml":         "kind: ClusterServiceVersion\n",
		}},
		{"manifests dir named by annotation, bundle below the root", map[string]string{
			"opt/b/meta/annotations.yaml": "annotations:\n  operators.operatorframework.io.bundle.manifests.v1: opt/b/objs/\n",
			"opt/b/objs/csv.yaml":         "kind: ClusterServiceVersion\n",
		}},
	} {
		for _, all := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s all metadata %v", tc.name, all), func(t *testing.T) {
				root, dest := t.TempDir(), t.TempDir()
				writeFiles(t, root, tc.files)
				require.NoError(t, CopyBundle(root, dest, all))
				got, err := os.ReadFile(filepath.Join(dest, "manifests", "csv.yaml"))
				require.NoError(t, err, "manifests/csv.yaml")
				require.Equal(t, "kind: ClusterServiceVersion\n", string(got), "manifests/csv.yaml")
				require.FileExists(t, filepath.Join(dest, "metadata", AnnotationsFile))
				_, err = os.Stat(filepath.Join(dest, "metadata", "dependencies.yaml"))
				_, inBundle := tc.files["metadata/dependencies.yaml"]
				require.Equal(t, all && inBundle, err == nil, "metadata/dependencies.yaml copied: %v", err)
			})
		}
	}
	require.Error(t, CopyBundle(t.TempDir(), t.TempDir(), false), "copying a directory without a bundle succeeded")
}

func TestCopyFileRefusesExisting(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a": "x", "b": "y"})
	require.Error(t, CopyFile(filepath.Join(dir, "a"), filepath.Join(dir, "b"), 0o755), "CopyFile overwrote an existing file")
	require.NoError(t, CopyFile(filepath.Join(dir, "a"), filepath.Join(dir, "c"), 0o755))
	st, err := os.Stat(filepath.Join(dir, "c"))
	require.NoError(t, err, "copied file")
	require.Equal(t, os.FileMode(0o755), st.Mode().Perm(), "copied file's mode")
}
