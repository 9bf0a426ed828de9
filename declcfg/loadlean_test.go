package declcfg

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLeanBundlesKeepAllButObjects: a lean load is the full load with
// every olm.bundle.object value replaced by the stand-in, one empty
// Objects entry per object and no CsvJSON; everything else (blob order,
// origins, other properties, images) is identical, and the model built
// from it validates the same way.
func TestLeanBundlesKeepAllButObjects(t *testing.T) {
	dirs, err := filepath.Glob("../fixtures/legacy/*/opm-migrate*")
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	ctx := context.Background()
	for _, dir := range dirs {
		t.Run(dir, func(t *testing.T) {
			full, err := LoadDir(ctx, dir)
			require.NoError(t, err)
			lean, err := LoadDir(ctx, dir, WithLeanBundles())
			require.NoError(t, err)
			objects := 0
			for i := range full.Bundles {
				b := &full.Bundles[i]
				objects += len(b.Objects)
				want := *b
				want.Properties = append([]Property(nil), b.Properties...)
				for k := range want.Properties {
					if want.Properties[k].Type == PropertyBundleObject {
						want.Properties[k].Value = leanObjectValue
					}
				}
				want.Objects = make([]string, len(b.Objects))
				if len(b.Objects) == 0 {
					want.Objects = nil
				}
				want.CsvJSON = ""
				require.Equal(t, want, lean.Bundles[i])
			}
			require.Equal(t, full.Packages, lean.Packages)
			require.Equal(t, full.Channels, lean.Channels)
			require.Equal(t, full.Deprecations, lean.Deprecations)
			require.Equal(t, full.Others, lean.Others)
			_, _, ferr := toModel(full)
			_, _, lerr := toModel(lean)
			require.Equal(t, ferr, lerr)
			if filepath.Base(dir) == "opm-migrate" {
				require.Positive(t, objects, "the fixture has manifests to drop")
			}
		})
	}
}

// TestLeanBundlesSameValidationErrors: model rules that look at objects
// (their count) and at the olm.bundle.object properties report the same
// problems on a lean load.
func TestLeanBundlesSameValidationErrors(t *testing.T) {
	obj := `{"type":"olm.bundle.object","value":{"data":"eyJraW5kIjoiQ29uZmlnTWFwIn0="}}`
	dir := writeTree(t, map[string]string{
		"p/c.json": pkgBlob("p", "s") + chBlob("p", "s", entry("p.v1"), entry("p.v2", "p.v1")) +
			bundleWith("p", "p.v1", "", pkgProp("p", "1.0.0"), obj) + // objects, no image: fine
			bundleWith("p", "p.v2", "", pkgProp("p", "2.0.0")) + // neither image nor objects
			bundleWith("p", "p.v3", "example.com/x/y:1", obj, `{"type":"olm.gvk","value":{"group":1}}`),
	})
	ctx := context.Background()
	full, err := LoadDir(ctx, dir)
	require.NoError(t, err)
	lean, err := LoadDir(ctx, dir, WithLeanBundles())
	require.NoError(t, err)
	_, _, ferr := toModel(full)
	require.Error(t, ferr)
	_, _, lerr := toModel(lean)
	require.EqualError(t, lerr, ferr.Error())
}
