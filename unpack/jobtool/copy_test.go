package jobtool

import (
	"os"
	"path/filepath"
	"testing"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

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
		t.Run(tc.name, func(t *testing.T) {
			root, dest := t.TempDir(), t.TempDir()
			writeFiles(t, root, tc.files)
			if err := CopyBundle(root, dest); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(dest, "manifests", "csv.yaml"))
			if err != nil || string(got) != "kind: ClusterServiceVersion\n" {
				t.Fatalf("manifests/csv.yaml = %q, %v", got, err)
			}
			if _, err := os.Stat(filepath.Join(dest, "metadata", AnnotationsFile)); err != nil {
				t.Fatal(err)
			}
		})
	}
	if err := CopyBundle(t.TempDir(), t.TempDir()); err == nil {
		t.Fatal("copying a directory without a bundle succeeded")
	}
}

func TestCopyFileRefusesExisting(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a": "x", "b": "y"})
	if err := CopyFile(filepath.Join(dir, "a"), filepath.Join(dir, "b"), 0o755); err == nil {
		t.Fatal("CopyFile overwrote an existing file")
	}
	if err := CopyFile(filepath.Join(dir, "a"), filepath.Join(dir, "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(dir, "c")); err != nil || st.Mode().Perm() != 0o755 {
		t.Fatalf("copied file: %v %v", st, err)
	}
}
