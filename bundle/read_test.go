package bundle_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/bundle"
	"github.com/operator-catalog/olmcat/declcfg"
)

// bundleDirs lists the real bundle directories that have opm's render
// recorded beside them (opm-render.json).
func bundleDirs(t *testing.T) []string {
	t.Helper()
	renders, err := filepath.Glob("../fixtures/bundles/*/*/opm-render.json")
	require.NoError(t, err)
	more, _ := filepath.Glob("../fixtures/bundles/*/*/*/opm-render.json")
	var dirs []string
	for _, r := range append(renders, more...) {
		dirs = append(dirs, filepath.Dir(r))
	}
	require.GreaterOrEqual(t, len(dirs), 100, "bundle dirs with opm-render.json (the 105 real ones)")
	return dirs
}

// renderBundle writes b as opm render writes one blob.
func renderBundle(t *testing.T, b declcfg.Bundle) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, declcfg.WriteStream(&buf, &declcfg.DeclarativeConfig{Bundles: []declcfg.Bundle{b}}, declcfg.FormatJSON))
	return buf.String()
}

// TestFromFSEqualsOPMRender: every real bundle directory renders
// byte for byte as opm v1.73.0 rendered it.
func TestFromFSEqualsOPMRender(t *testing.T) {
	for _, dir := range bundleDirs(t) {
		t.Run(strings.TrimPrefix(dir, "../fixtures/bundles/"), func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(dir, "opm-render.json"))
			require.NoError(t, err)
			b, meta, err := bundle.FromFS(os.DirFS(dir))
			require.NoError(t, err)
			assert.Equal(t, b.Package, meta.Package(), "metadata: package")
			assert.NotEmpty(t, meta.Channels(), "metadata: channels")
			assert.Empty(t, cmp.Diff(string(want), renderBundle(t, b)), "render differs from opm's (-opm +olmcat)")
		})
	}
}

// TestFromFSImage: rendered from an image, the image field is the
// reference as typed and the bundle image joins relatedImages; with
// csv metadata the objects give way to one olm.csv.metadata.
func TestFromFSImage(t *testing.T) {
	dir := "../fixtures/bundles/opm-bundles/etcd.0.9.2"
	ref := "registry.test/ns/etcd-bundle:0.9.2"
	b, _, err := bundle.FromFS(os.DirFS(dir), bundle.WithImage(ref))
	require.NoError(t, err)
	assert.Equal(t, ref, b.Image)
	assert.Contains(t, b.RelatedImages, declcfg.RelatedImage{Image: ref}, "bundle image among relatedImages")
	b, _, err = bundle.FromFS(os.DirFS(dir), bundle.WithCSVMetadata(true))
	require.NoError(t, err)
	last := b.Properties[len(b.Properties)-1]
	assert.Equal(t, declcfg.PropertyCSVMetadata, last.Type, "last property")
	for _, p := range b.Properties {
		assert.NotEqual(t, declcfg.PropertyBundleObject, p.Type, "olm.bundle.object left with csv metadata")
	}
}

func TestFromFSErrors(t *testing.T) {
	csv := &fstest.MapFile{Data: []byte("apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: a.v1\nspec:\n  version: 1.0.0\n  customresourcedefinitions:\n    owned:\n    - name: as.test\n      kind: A\n      version: v1\n")}
	crd := &fstest.MapFile{Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")}
	ann := &fstest.MapFile{Data: []byte("annotations:\n  operators.operatorframework.io.bundle.package.v1: a\n  operators.operatorframework.io.bundle.channels.v1: stable\n")}
	for _, tc := range []struct {
		name string
		fs   fstest.MapFS
		want string
	}{
		{"no metadata", fstest.MapFS{"manifests/csv.yaml": csv}, "bundle metadata/"},
		{"no annotations", fstest.MapFS{"manifests/csv.yaml": csv, "metadata/other.yaml": crd}, "no annotations file"},
		{"no csv", fstest.MapFS{"manifests/cm.yaml": crd, "metadata/annotations.yaml": ann}, "no csv in bundle"},
		{"no objects", fstest.MapFS{"manifests/.hidden": crd, "metadata/annotations.yaml": ann}, "no bundle objects found"},
		{"owned crd missing", fstest.MapFS{"manifests/csv.yaml": csv, "metadata/annotations.yaml": ann}, "owns test/v1/A"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := bundle.FromFS(tc.fs)
			require.ErrorContains(t, err, tc.want)
		})
	}
}
