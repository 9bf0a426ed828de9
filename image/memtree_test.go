package image_test

import (
	"archive/tar"
	"context"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

var bundleLabels = map[string]string{annotation.Package: "etcd"}

// readTree reads every file of fsys by path, and the names of each
// directory in the order ReadDir lists them.
func readTree(t *testing.T, fsys fs.FS) map[string]string {
	t.Helper()
	got := map[string]string{}
	require.NoError(t, fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			ents, err := fs.ReadDir(fsys, p)
			var names []string
			for _, e := range ents {
				names = append(names, e.Name()+"|"+e.Type().String())
			}
			got[p+"/"] = strings.Join(names, ",")
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		got[p] = string(data)
		return err
	}))
	return got
}

// TestBundleInMemory: a plain bundle image is extracted into memory, and
// reads as its extraction on disk does (whiteouts of a lower layer
// honoured, what lies outside manifests/ and metadata/ left out); a
// bundle with a link, or more bytes than the budget, is extracted on disk.
func TestBundleInMemory(t *testing.T) {
	reg := imagetest.New(t)
	lower := imagetest.Layer(t, E{Name: "manifests/old.yaml", Body: "kind: Old"}, E{Name: "manifests/csv.yaml", Body: "kind: Lower"},
		E{Name: "etc/passwd", Body: "x"})
	upper := imagetest.Layer(t, E{Name: "manifests/", Type: tar.TypeDir}, E{Name: "manifests/csv.yaml", Body: "kind: ClusterServiceVersion"},
		E{Name: "manifests/.wh.old.yaml"}, E{Name: "manifests/sub/crd.json", Body: `{"kind":"CustomResourceDefinition"}`},
		E{Name: "metadata/annotations.yaml", Body: "annotations: {}"})
	plain := reg.Push(t, "plain:v1", imagetest.Image(t, bundleLabels, nil, lower, upper))
	linked := reg.Push(t, "linked:v1", imagetest.Image(t, bundleLabels, nil, upper,
		imagetest.Layer(t, E{Name: "metadata/link.yaml", Type: tar.TypeSymlink, Linkname: "annotations.yaml"})))

	onDisk, err := image.ExtractCatalog(context.Background(), plain, extractOpts(t, t.TempDir())...)
	require.NoError(t, err)
	defer onDisk.Close()
	want := readTree(t, os.DirFS(onDisk.Root))

	tmp := t.TempDir()
	mem, err := image.ExtractCatalog(context.Background(), plain, extractOpts(t, tmp, image.WithBundleInMemory(1<<20))...)
	require.NoError(t, err)
	require.NotNil(t, mem.FS)
	assert.Empty(t, mem.Root)
	assert.Equal(t, want, readTree(t, mem.FS))
	require.NoError(t, fstest.TestFS(mem.FS, "manifests/csv.yaml", "manifests/sub/crd.json", "metadata/annotations.yaml"))
	_, err = fs.ReadDir(mem.FS, "nowhere")
	_, diskErr := fs.ReadDir(os.DirFS(onDisk.Root), "nowhere")
	assert.EqualError(t, err, diskErr.Error())
	require.NoError(t, mem.Close())
	assertEmpty(t, tmp)

	for _, tc := range []struct {
		name, ref string
		budget    int64
	}{{"a link", linked, 1 << 20}, {"over the budget", plain, 10}} {
		t.Run(tc.name, func(t *testing.T) {
			u, err := image.ExtractCatalog(context.Background(), tc.ref, extractOpts(t, t.TempDir(), image.WithBundleInMemory(tc.budget))...)
			require.NoError(t, err)
			defer u.Close()
			assert.Nil(t, u.FS)
			assert.FileExists(t, u.Root+"/metadata/annotations.yaml")
		})
	}
}
