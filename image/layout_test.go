package image_test

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

// writeLayout writes images (or indexes) into a new OCI layout, each
// named by its ref.name annotation.
func writeLayout(t *testing.T, named map[string]any) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "layout")
	p, err := layout.Write(dir, empty.Index)
	require.NoError(t, err)
	for n, img := range named {
		ann := layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": n})
		switch v := img.(type) {
		case v1.Image:
			require.NoError(t, p.AppendImage(v, ann))
		case v1.ImageIndex:
			require.NoError(t, p.AppendIndex(v, ann))
		}
	}
	return dir
}

func readConfigs(t *testing.T, u *image.Extracted) map[string]string {
	t.Helper()
	got := map[string]string{}
	require.NoError(t, filepath.WalkDir(u.Local, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(u.Local, p)
			got[filepath.ToSlash(rel)] = string(data)
		}
		return err
	}))
	return got
}

// TestExtractCatalogOCILayout: oci:DIR[:REF] and oci-archive:FILE[:REF]
// read an image without a registry, by name or alone, picking the
// platform from an index, with the layer digests checked.
func TestExtractCatalogOCILayout(t *testing.T) {
	arm := v1.Platform{OS: "linux", Architecture: "arm64"}
	one := imagetest.Image(t, configsLabels, nil, imagetest.Layer(t, E{Name: "configs/a.json", Body: "one"}))
	idx := imagetest.Index(t,
		imagetest.Image(t, configsLabels, &arm, imagetest.Layer(t, E{Name: "configs/a.json", Body: "arm"})),
		imagetest.Image(t, configsLabels, nil, imagetest.Layer(t, E{Name: "configs/a.json", Body: "amd"})))
	multi := writeLayout(t, map[string]any{"registry.example.com/ns/cat:v1": one, "v2": idx})
	single := writeLayout(t, map[string]any{"only": one})
	for _, tc := range []struct {
		name, ref, want string
		opts            []image.Option
	}{
		{"by full name", "oci:" + multi + ":registry.example.com/ns/cat:v1", "one", nil},
		{"by tag of a full name", "oci:" + multi + ":v1", "one", nil},
		{"index, default platform", "oci:" + multi + ":v2", "amd", nil},
		{"index, chosen platform", "oci:" + multi + ":v2", "arm", []image.Option{image.WithPlatform(arm)}},
		{"the only image", "oci:" + single, "one", nil},
		{"archive by name", "oci-archive:" + imagetest.ArchiveDir(t, multi, filepath.Join(t.TempDir(), "multi.tar")) + ":v2", "amd", nil},
		{"archive, the only image", "oci-archive:" + imagetest.ArchiveDir(t, single, filepath.Join(t.TempDir(), "single.tar")), "one", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, err := image.ExtractCatalog(context.Background(), tc.ref, extractOpts(t, t.TempDir(), tc.opts...)...)
			require.NoError(t, err)
			defer u.Close()
			assert.Equal(t, map[string]string{"a.json": tc.want}, readConfigs(t, u))
			assert.Equal(t, tc.ref, u.Pulled.Ref)
		})
	}

	damaged := writeLayout(t, map[string]any{"v1": one})
	layers, _ := one.Layers()
	d, _ := layers[0].Digest()
	blob := filepath.Join(damaged, "blobs", "sha256", d.Hex)
	other := imagetest.Layer(t, E{Name: "configs/a.json", Body: "evil"})
	rc, _ := other.Compressed()
	evil, _ := io.ReadAll(rc)
	require.NoError(t, os.WriteFile(blob, evil, 0o644))
	for _, tc := range []struct {
		name, ref, err string
		opts           []image.Option
	}{
		{"unknown name", "oci:" + multi + ":v9", `no image named "v9"`, nil},
		{"several images, none named", "oci:" + multi, "holds 2 images", nil},
		{"not a layout", "oci:" + t.TempDir(), "not an OCI image layout", nil},
		{"missing archive", "oci-archive:" + filepath.Join(t.TempDir(), "none.tar"), "no such file", nil},
		{"damaged layer", "oci:" + damaged, "with digest", nil},
		{"archive of too many files", "oci-archive:" + imagetest.ArchiveDir(t, multi, filepath.Join(t.TempDir(), "many.tar")), "more than 3 files",
			[]image.Option{image.WithLimits(image.Limits{MaxFiles: 3})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			_, err := image.ExtractCatalog(context.Background(), tc.ref, extractOpts(t, tmp, tc.opts...)...)
			require.ErrorContains(t, err, tc.err)
			assertEmpty(t, tmp)
		})
	}
}
