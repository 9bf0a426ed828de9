package unpack

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readTarGz returns the entries of a tar.gz: name -> content, directories
// with content "<dir>".
func readTarGz(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	out := map[string]string{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if hdr.Uid != 0 || hdr.Gid != 0 {
			t.Errorf("%s owned by %d:%d", hdr.Name, hdr.Uid, hdr.Gid)
		}
		if hdr.Typeflag == tar.TypeDir {
			out[hdr.Name] = "<dir>"
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out[hdr.Name] = string(data)
	}
}

func TestWriteLocal(t *testing.T) {
	root := filepath.Join(t.TempDir(), "bundles")
	cm := configMap(map[string]string{"svc.yaml": testSvc, "crd.yaml": testCRD + "---\n" + testCRD}, map[string][]byte{"csv.yaml": []byte(testCSV)}, nil)
	got, err := WriteLocal(cm, root, WithBundleName("my-bundle"))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "my-bundle.tar.gz"); got != want {
		t.Fatalf("path = %s, want %s", got, want)
	}
	want := map[string]string{
		"manifests/":         "<dir>",
		"manifests/svc.yaml": testSvc,
		"manifests/crd.yaml": testCRD + "---\n" + testCRD,
		"manifests/csv.yaml": testCSV,
	}
	if diff := cmp.Diff(want, readTarGz(t, got)); diff != "" {
		t.Errorf("archive (-want +got):\n%s", diff)
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 {
		t.Errorf("root holds %d entries, want only the archive (no temp files)", len(entries))
	}

	// No clobbering without force; force replaces.
	if _, err := WriteLocal(cm, root, WithBundleName("my-bundle")); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("second write: %v, want an exists error", err)
	}
	cm.Data["svc.yaml"] = testCRD
	if _, err := WriteLocal(cm, root, WithBundleName("my-bundle"), WithForce(true)); err != nil {
		t.Fatal(err)
	}
	if readTarGz(t, got)["manifests/svc.yaml"] != testCRD {
		t.Error("forced write did not replace the archive")
	}
}

func TestWriteLocalRefuses(t *testing.T) {
	for _, tc := range []struct {
		name    string
		data    map[string]string
		opts    []LocalOption
		wantErr string
	}{
		{"name climbing out", nil, []LocalOption{WithBundleName("../evil")}, `bundle name "../evil"`},
		{"name with slash", nil, []LocalOption{WithBundleName("a/b")}, `bundle name "a/b"`},
		{"absolute name", nil, []LocalOption{WithBundleName("/etc/x")}, `bundle name "/etc/x"`},
		{"key climbing out", map[string]string{"../../x.yaml": testSvc}, nil, `key "../../x.yaml": key is not a plain file name`},
		{"key dot-dot", map[string]string{"..": testSvc}, nil, `key "..": key is not a plain file name`},
		{"key with backslash", map[string]string{`..\x`: testSvc}, nil, `is not a plain file name`},
		{"not an object", map[string]string{"notes.txt": "hello: world\n"}, nil, `key "notes.txt": document 1 is not a Kubernetes object`},
		{"empty", map[string]string{}, nil, "is empty: at least one object is required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			root := filepath.Join(parent, "root")
			data := tc.data
			if data == nil {
				data = map[string]string{"svc.yaml": testSvc}
			}
			_, err := WriteLocal(configMap(data, nil, nil), root, tc.opts...)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("WriteLocal error = %v, want %q", err, tc.wantErr)
			}
			// Nothing was written anywhere under parent.
			var written []string
			filepath.WalkDir(parent, func(p string, d os.DirEntry, _ error) error {
				if !d.IsDir() {
					written = append(written, p)
				}
				return nil
			})
			if len(written) > 0 {
				t.Errorf("files written: %v", written)
			}
		})
	}
}
