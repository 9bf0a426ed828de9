package template

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
)

// spillTemplate is a basic template whose blobs arrive out of declcfg's
// write order: packages, channels, bundles and other blobs not by name,
// channel entries not by name, blobs of no package, deprecations, and
// two blobs of one kind with equal keys (their order must hold).
const spillTemplate = `{"schema": "olm.template.basic", "entries": [
	{"schema": "olm.bundle", "image": "example.invalid/zeta:1.0.0"},
	{"schema": "olm.package", "name": "zeta", "description": "the last"},
	{"schema": "x.global", "name": "one"},
	{"schema": "olm.channel", "package": "alpha", "name": "stable", "entries": [{"name": "alpha.v2.0.0", "replaces": "alpha.v1.0.0"}, {"name": "alpha.v1.0.0"}]},
	{"schema": "olm.package", "name": "alpha", "defaultChannel": "stable"},
	{"schema": "x.other", "package": "alpha", "name": "second", "value": 2},
	{"schema": "olm.bundle", "image": "example.invalid/alpha:2.0.0"},
	{"schema": "olm.channel", "package": "alpha", "name": "beta", "entries": [{"name": "alpha.v1.0.0"}]},
	{"schema": "olm.deprecations", "package": "alpha", "entries": [{"reference": {"schema": "olm.channel", "name": "beta"}, "message": "beta is gone"}]},
	{"schema": "a.other", "package": "alpha", "name": "first"},
	{"schema": "x.other", "package": "alpha", "name": "third", "value": 3},
	{"schema": "olm.bundle", "image": "example.invalid/alpha:1.0.0"},
	{"schema": "olm.channel", "package": "zeta", "name": "stable", "entries": [{"name": "zeta.v1.0.0"}]},
	{"schema": "x.global", "name": "two"}
]}`

// spillRenderer renders example.invalid/<package>:<version> as bundle
// <package>.v<version> with a manifest of its own.
func spillRenderer(_ context.Context, ref string) (*declcfg.Bundle, error) {
	pkg, version, _ := strings.Cut(strings.TrimPrefix(ref, "example.invalid/"), ":")
	return &declcfg.Bundle{Schema: declcfg.SchemaBundle, Name: pkg + ".v" + version, Package: pkg, Image: ref,
		Properties: []declcfg.Property{
			declcfg.MustProperty(declcfg.PropertyPackage, declcfg.PackageValue{PackageName: pkg, Version: version}),
			{Type: declcfg.PropertyBundleObject, Value: []byte(`{"data":"e30="}`)},
		}}, nil
}

// TestRenderToSpillsInWriteOrder: RenderTo keeps only records of the
// blobs it spilled as a basic template's entries loaded and as its
// bundles rendered, and copies them back in declcfg's write order: its
// output is what Render's config writes, in both formats, and the spill
// file is gone afterwards.
func TestRenderToSpillsInWriteOrder(t *testing.T) {
	for _, f := range []declcfg.Format{declcfg.FormatJSON, declcfg.FormatYAML} {
		t.Run(string(f), func(t *testing.T) {
			cfg, err := Render(context.Background(), []byte(spillTemplate), WithBundleRenderer(spillRenderer))
			require.NoError(t, err)
			var want, got bytes.Buffer
			require.NoError(t, declcfg.WriteStream(&want, cfg, f, declcfg.KeepEntryOrder()))
			dir := t.TempDir()
			require.NoError(t, RenderTo(context.Background(), &got, f, []byte(spillTemplate), dir, WithBundleRenderer(spillRenderer)))
			assert.Empty(t, cmp.Diff(want.String(), got.String()), "RenderTo differs from Render (-Render +RenderTo)")
			assert.Less(t, strings.Index(got.String(), "alpha.v1.0.0"), strings.Index(got.String(), "zeta"), "packages by name")
			assert.Less(t, strings.Index(got.String(), `second`), strings.Index(got.String(), `third`), "equal keys in the order loaded")
			left, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Empty(t, left, "the spill file is removed")
		})
	}
}

// TestRenderToLastEntriesKeyWins: of two "entries" keys the last is the
// template's, as for Render, though the first's blobs were spilled.
func TestRenderToLastEntriesKeyWins(t *testing.T) {
	doc := `{"schema": "olm.template.basic", "entries": [{"schema": "olm.package", "name": "gone"}, {"schema": "x.other", "name": "gone"}],
		"entries": [{"schema": "olm.package", "name": "zeta"}, {"schema": "olm.bundle", "image": "example.invalid/zeta:1.0.0"}]}`
	cfg, err := Render(context.Background(), []byte(doc), WithBundleRenderer(spillRenderer))
	require.NoError(t, err)
	var want, got bytes.Buffer
	require.NoError(t, declcfg.WriteStream(&want, cfg, declcfg.FormatJSON, declcfg.KeepEntryOrder()))
	require.NoError(t, RenderTo(context.Background(), &got, declcfg.FormatJSON, []byte(doc), t.TempDir(), WithBundleRenderer(spillRenderer)))
	assert.Empty(t, cmp.Diff(want.String(), got.String()))
	assert.NotContains(t, got.String(), "gone")
}
