package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/bundle"
	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

// realBundleDirs are the fixture bundle dirs with opm's render beside them.
func realBundleDirs(t *testing.T) []string {
	t.Helper()
	a, _ := filepath.Glob("../../fixtures/bundles/*/*/opm-render.json")
	b, _ := filepath.Glob("../../fixtures/bundles/*/*/*/opm-render.json")
	var dirs []string
	for _, r := range append(a, b...) {
		dirs = append(dirs, filepath.Dir(r))
	}
	require.GreaterOrEqual(t, len(dirs), 100)
	return dirs
}

// pushBundleImage pushes a bundle image built from a bundle dir's
// manifests/ and metadata/, labelled as opm's bundle.Dockerfile labels it.
func pushBundleImage(t *testing.T, reg *imagetest.Registry, repoTag, dir string) string {
	t.Helper()
	meta, err := bundle.ReadMetadata(os.DirFS(dir))
	require.NoError(t, err)
	labels := map[string]string{annotation.Package: meta.Package(), annotation.Channels: meta.Annotations[annotation.Channels]}
	return reg.Push(t, repoTag, imagetest.Image(t, labels, nil,
		imagetest.DirLayer(t, filepath.Join(dir, "manifests"), "manifests"),
		imagetest.DirLayer(t, filepath.Join(dir, "metadata"), "metadata")))
}

// opmImageRender is opm's render of the image of a bundle dir, derived from
// its recorded render of the dir (reference §2.3: the two differ only in
// the image field and the bundle image joining relatedImages).
func opmImageRender(t *testing.T, dir, ref string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "opm-render.json"))
	require.NoError(t, err)
	var b declcfg.Bundle
	require.NoError(t, json.Unmarshal(data, &b))
	b.Image = ref
	b.RelatedImages = append(b.RelatedImages, declcfg.RelatedImage{Image: ref})
	sort.SliceStable(b.RelatedImages, func(i, j int) bool { return b.RelatedImages[i].Image < b.RelatedImages[j].Image })
	var buf bytes.Buffer
	require.NoError(t, declcfg.WriteStream(&buf, &declcfg.DeclarativeConfig{Bundles: []declcfg.Bundle{b}}, declcfg.FormatJSON))
	return buf.String()
}

// TestRenderBundles: render of every real bundle dir, and of the bundle
// image built from it, equals opm's render.
func TestRenderBundles(t *testing.T) {
	reg := imagetest.New(t)
	tmp, flags := imageTestEnv(t)
	for i, dir := range realBundleDirs(t) {
		name := strings.TrimPrefix(dir, "../../fixtures/bundles/")
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(dir, "opm-render.json"))
			require.NoError(t, err)
			got, stderr, code := runCLI(t, "render", dir)
			require.Equal(t, 0, code, stderr)
			require.Equal(t, string(want), got)

			ref := pushBundleImage(t, reg, strings.ToLower(strings.NewReplacer("/", "-", "+", "-").Replace(name))+":v"+string(rune('a'+i%26)), dir)
			got, stderr, code = runCLI(t, append([]string{"render", ref}, flags...)...)
			require.Equal(t, 0, code, stderr)
			require.Equal(t, opmImageRender(t, dir, ref), got)
		})
	}
	assertNoImageTemp(t, tmp)
}

// TestRenderBundleImageErrors: bundle images without a CSV or without
// annotations fail clearly and leave nothing behind.
func TestRenderBundleImageErrors(t *testing.T) {
	reg := imagetest.New(t)
	tmp, flags := imageTestEnv(t)
	labels := map[string]string{annotation.Package: "etcd"}
	ann := imagetest.Entry{Name: "metadata/annotations.yaml", Body: "annotations:\n  " + annotation.Package + ": etcd\n  " + annotation.Channels + ": alpha\n"}
	cm := imagetest.Entry{Name: "manifests/cm.yaml", Body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"}
	noCSV := reg.Push(t, "nocsv:v1", imagetest.Image(t, labels, nil, imagetest.Layer(t, ann, cm)))
	noAnn := reg.Push(t, "noann:v1", imagetest.Image(t, labels, nil, imagetest.Layer(t, cm, imagetest.Entry{Name: "metadata/other.yaml", Body: "foo: bar\n"})))
	for ref, want := range map[string]string{noCSV: "no csv in bundle", noAnn: "no annotations file"} {
		out, stderr, code := runCLI(t, append([]string{"render", ref}, flags...)...)
		require.Equal(t, exitInvalid, code)
		require.Empty(t, out)
		require.Contains(t, stderr, "render "+ref)
		require.Contains(t, stderr, want)
	}
	assertNoImageTemp(t, tmp)
}
