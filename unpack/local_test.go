package unpack

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readTarGz returns the entries of a tar.gz: name -> content, directories
// with content "<dir>".
func readTarGz(t testing.TB, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err, "%s", path)
	tr := tar.NewReader(zr)
	out := map[string]string{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err, "%s", path)
		assert.Zero(t, hdr.Uid, "%s owner uid", hdr.Name)
		assert.Zero(t, hdr.Gid, "%s owner gid", hdr.Name)
		if hdr.Typeflag == tar.TypeDir {
			out[hdr.Name] = "<dir>"
			continue
		}
		data, err := io.ReadAll(tr)
		require.NoError(t, err, "%s: %s", path, hdr.Name)
		out[hdr.Name] = string(data)
	}
}

func TestWriteLocal(t *testing.T) {
	root := filepath.Join(t.TempDir(), "bundles")
	cm := configMap(map[string]string{"svc.yaml": testSvc, "crd.yaml": testCRD + "---\n" + testCRD}, map[string][]byte{"csv.yaml": []byte(testCSV)}, nil)
	got, err := WriteLocal(cm, root, WithBundleName("my-bundle"))
	require.NoError(t, err)
	require.Equal(t, filepath.Join(root, "my-bundle.tar.gz"), got, "path")
	want := map[string]string{
		"manifests/":         "<dir>",
		"manifests/svc.yaml": testSvc,
		"manifests/crd.yaml": testCRD + "---\n" + testCRD,
		"manifests/csv.yaml": testCSV,
	}
	assert.Empty(t, cmp.Diff(want, readTarGz(t, got)), "archive (-want +got)")
	entries, _ := os.ReadDir(root)
	assert.Len(t, entries, 1, "root: want only the archive (no temp files)")

	// No clobbering without force; force replaces.
	_, err = WriteLocal(cm, root, WithBundleName("my-bundle"))
	require.ErrorContains(t, err, "exists", "second write")
	cm.Data["svc.yaml"] = testCRD
	_, err = WriteLocal(cm, root, WithBundleName("my-bundle"), WithForce(true))
	require.NoError(t, err, "forced write")
	assert.Equal(t, testCRD, readTarGz(t, got)["manifests/svc.yaml"], "forced write did not replace the archive")
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
			require.ErrorContains(t, err, tc.wantErr, "WriteLocal")
			// Nothing was written anywhere under parent.
			var written []string
			filepath.WalkDir(parent, func(p string, d os.DirEntry, _ error) error {
				if !d.IsDir() {
					written = append(written, p)
				}
				return nil
			})
			assert.Empty(t, written, "files written")
		})
	}
}
