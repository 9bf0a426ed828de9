package main

import (
	"archive/tar"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/bundle"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

// TestAlphaBundleBuild builds the foo 0.1.0 bundle without a daemon: an
// annotations.yaml that lacks or contradicts generated annotations is
// refused without --overwrite (and kept); the pushed image pulled back
// holds exactly the bundle's files with its annotations as labels; two
// builds (file times changed between them) and the OCI layout have the
// same digest; render of oci:DIR gives the bundle directory's olm.bundle.
func TestAlphaBundleBuild(t *testing.T) {
	reg := imagetest.New(t)
	_, imgFlags := imageTestEnv(t)
	src, err := filepath.Abs("../../fixtures/bundles/small-fbb/foo-bundle-v0.1.0")
	require.NoError(t, err)
	wd := t.TempDir()
	for _, part := range []string{"manifests", "metadata"} {
		require.NoError(t, os.CopyFS(filepath.Join(wd, "b1", part), os.DirFS(filepath.Join(src, part))))
	}
	t.Chdir(wd)
	ref := reg.Host + "/foo/bundle:v0.1.0"
	build := func(args ...string) (string, string, int) {
		return runCLI(t, append(append([]string{"alpha", "bundle", "build", "-d", "b1/manifests", "-c", "beta", "-e", "beta"}, args...), imgFlags...)...)
	}

	_, stderr, code := build("-p", "bar", "-t", ref)
	assert.Equal(t, exitInvalid, code)
	assert.Contains(t, stderr, `[Missing field: operators.operatorframework.io.bundle.manifests.v1, Missing field: operators.operatorframework.io.bundle.mediatype.v1, `+
		`Missing field: operators.operatorframework.io.bundle.metadata.v1, Expect field "operators.operatorframework.io.bundle.package.v1" to have value "bar" instead of "foo"]`)
	kept, err := os.ReadFile("b1/metadata/annotations.yaml")
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join(src, "metadata/annotations.yaml"))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(kept), "annotations.yaml kept")

	stdout, stderr, code := build("-p", "foo", "-o", "-t", ref)
	require.Equal(t, 0, code, stderr)
	digest := strings.TrimPrefix(strings.TrimSpace(stdout), ref+"@")
	require.True(t, strings.HasPrefix(digest, "sha256:"), stdout)
	assert.FileExists(t, "bundle.Dockerfile")

	later := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes("b1/manifests/foo.v0.1.0.csv.yaml", later, later))
	stdout, stderr, code = build("-p", "foo", "-t", ref, "-b", "podman")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, ref+"@"+digest, strings.TrimSpace(stdout), "a second build has the same digest")
	assert.Contains(t, stderr, "needs no container daemon")

	assertBundleImage(t, ref, "b1")

	layout := filepath.Join(t.TempDir(), "oci")
	stdout, stderr, code = build("-p", "foo", "--oci-layout", layout)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "oci:"+layout+"@"+digest, strings.TrimSpace(stdout), "the layout holds the same image")
	_, stderr, code = build("-p", "foo", "--oci-layout", layout)
	assert.Equal(t, exitInvalid, code, "an existing layout is not replaced without --force")
	assert.Contains(t, stderr, "--force")
	assertRenderEqual(t, "oci:"+layout, "b1", imgFlags)

	_, _, code = build("-p", "foo", "-t", ref, "-b", "kaniko")
	assert.Equal(t, exitUsage, code)
	_, _, code = build("-p", "foo")
	assert.Equal(t, exitUsage, code)
}

// assertBundleImage pulls ref and checks its labels are the annotations
// of dir's annotations.yaml and its files those of dir's manifests and
// metadata, owned by root with the epoch as time.
func assertBundleImage(t *testing.T, ref, dir string) {
	t.Helper()
	pulled, err := image.Pull(context.Background(), ref, image.WithUseHTTP(true))
	require.NoError(t, err)
	defer pulled.Close()
	meta, err := bundle.ReadMetadata(os.DirFS(dir))
	require.NoError(t, err)
	cf, err := pulled.Image.ConfigFile()
	require.NoError(t, err)
	assert.Equal(t, meta.Annotations, cf.Config.Labels)
	assert.Len(t, meta.Annotations, 6)

	want := map[string]string{}
	for _, part := range []string{"manifests", "metadata"} {
		ents, err := os.ReadDir(filepath.Join(dir, part))
		require.NoError(t, err)
		for _, e := range ents {
			data, err := os.ReadFile(filepath.Join(dir, part, e.Name()))
			require.NoError(t, err)
			want[part+"/"+e.Name()] = string(data)
		}
	}
	got := map[string]string{}
	rc := mutate.Extract(pulled.Image)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		assert.Zero(t, hdr.Uid, hdr.Name)
		assert.True(t, hdr.ModTime.Equal(time.Unix(0, 0)), hdr.Name)
		if hdr.Typeflag == tar.TypeReg {
			data, err := io.ReadAll(tr)
			require.NoError(t, err)
			got[hdr.Name] = string(data)
		}
	}
	assert.Equal(t, want, got)
}

// assertRenderEqual renders the bundle image ref and the bundle dir: the
// olm.bundle blobs are the same but for the image field, which names the
// image, and the image joining relatedImages.
func assertRenderEqual(t *testing.T, ref, dir string, imgFlags []string) {
	t.Helper()
	render := func(arg string) declcfg.Bundle {
		stdout, stderr, code := runCLI(t, append([]string{"render", arg, "-o", "json"}, imgFlags...)...)
		require.Equal(t, 0, code, stderr)
		var b declcfg.Bundle
		require.NoError(t, json.Unmarshal([]byte(stdout), &b))
		return b
	}
	fromImage, fromDir := render(ref), render(dir)
	assert.Equal(t, ref, fromImage.Image)
	assert.Empty(t, fromDir.Image)
	fromDir.Image = ref
	fromDir.RelatedImages = append(fromDir.RelatedImages, declcfg.RelatedImage{Image: ref})
	sort.SliceStable(fromDir.RelatedImages, func(i, j int) bool { return fromDir.RelatedImages[i].Image < fromDir.RelatedImages[j].Image })
	assert.Equal(t, fromDir, fromImage)
}
