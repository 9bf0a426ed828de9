package indexop

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/bundle"
	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/model"
)

// bundle is a new bundle: name pkg.v<version>, a CSV with replaces and
// skips, the channels and default channel of its annotations.
func testBundle(version, replaces string, skips []string, channels, def string) NewBundle {
	name := "p.v" + version
	csv := map[string]any{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
		"metadata": map[string]any{"name": name}, "spec": map[string]any{"version": version, "replaces": replaces, "skips": skips}}
	data, _ := json.Marshal(csv)
	ann := map[string]string{annotation.Package: "p", annotation.Channels: channels}
	if def != "" {
		ann[annotation.DefaultChannel] = def
	}
	return NewBundle{
		Bundle: declcfg.Bundle{Schema: declcfg.SchemaBundle, Name: name, Package: "p", Image: "img/" + strings.ReplaceAll(name, "+", "-"), CsvJSON: string(data),
			Properties: []declcfg.Property{declcfg.MustProperty(declcfg.PropertyPackage, declcfg.PackageValue{PackageName: "p", Version: version})}},
		Meta: bundle.Metadata{Annotations: ann},
	}
}

// rebuilt is b with another image.
func rebuilt(b NewBundle) NewBundle {
	b.Bundle.Image += "-rebuilt"
	return b
}

// entries maps each channel of cfg to "name<replaces[skips]" strings.
func entries(cfg *declcfg.DeclarativeConfig) map[string][]string {
	out := map[string][]string{}
	for _, ch := range cfg.Channels {
		for _, e := range ch.Entries {
			s := e.Name
			if e.Replaces != "" {
				s += "<" + e.Replaces
			}
			if len(e.Skips) > 0 {
				s += fmt.Sprint(e.Skips)
			}
			out[ch.Name] = append(out[ch.Name], s)
		}
	}
	return out
}

// requireStep checks the result of step i: the error wanted (a
// *BundleError), else the channels wanted in a valid package. It says
// whether the step succeeded.
func requireStep(t testing.TB, i int, got *declcfg.DeclarativeConfig, err error, wantErr string, want map[string][]string) bool {
	t.Helper()
	if wantErr != "" {
		require.ErrorContains(t, err, wantErr, "step %d", i)
		var be *BundleError
		require.ErrorAs(t, err, &be)
		return false
	}
	require.NoError(t, err, "step %d", i)
	require.Equal(t, want, entries(got), "step %d", i)
	_, err = model.FromDeclcfg(got)
	require.NoError(t, err, "step %d", i)
	return true
}

// TestAdd covers the graph update modes step by step: each row adds
// bundles to the package the previous rows made.
func TestAdd(t *testing.T) {
	type step struct {
		mode     Mode
		add      []NewBundle
		channels map[string][]string
		def      string
		err      string
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"replaces: heads by version, chain from the CSV, skips as members", []step{
			{ModeReplaces, []NewBundle{testBundle("1.0.0", "", nil, "a", ""), testBundle("1.1.0", "p.v1.0.0", []string{"p.v0.9.0"}, "a", "")},
				map[string][]string{"a": {"p.v1.1.0<p.v1.0.0[p.v0.9.0]", "p.v1.0.0"}}, "a", ""},
			{ModeReplaces, []NewBundle{testBundle("1.2.0", "p.v1.0.0", []string{"p.v1.1.0"}, "a,b", "b")},
				map[string][]string{"a": {"p.v1.2.0<p.v1.0.0[p.v1.1.0]", "p.v1.1.0", "p.v1.0.0"}, "b": {"p.v1.2.0<p.v1.0.0[p.v1.1.0]", "p.v1.1.0", "p.v1.0.0"}}, "b", ""},
			{ModeReplaces, []NewBundle{testBundle("1.1.5", "p.v1.0.0", nil, "a", "")}, nil, "", "add prunes bundle p.v1.1.5"},
			{ModeReplaces, []NewBundle{testBundle("1.3.0", "p.v1.2.5", nil, "a", "")}, nil, "", "Invalid bundle p.v1.3.0, replaces nonexistent bundle p.v1.2.5"},
			{ModeReplaces, []NewBundle{testBundle("1.3.0", "p.v1.2.0", nil, "a", "c")}, nil, "", "unable to determine default channel among channel heads: map[a:p.v1.3.0 b:p.v1.2.0]"},
			{ModeReplaces, []NewBundle{rebuilt(testBundle("1.2.0", "p.v1.1.0", nil, "a", ""))}, nil, "", "Bundle already added that provides package and csv"},
			{ModeReplaces, []NewBundle{testBundle("1.2.0", "p.v1.1.0", nil, "a", "")}, nil, "", "Bundle img/p.v1.2.0 already exists"},
		}},
		{"replaces: a new package with two channels and no default fails", []step{
			{ModeReplaces, []NewBundle{testBundle("1.0.0", "", nil, "a,b", "")}, nil, "", "unable to determine default channel"},
			{ModeReplaces, []NewBundle{testBundle("1.0.0", "", nil, "a", ""), testBundle("1.0.0+1", "p.v1.0.0", nil, "a", "")},
				map[string][]string{"a": {"p.v1.0.0+1<p.v1.0.0", "p.v1.0.0"}}, "a", ""},
		}},
		{"semver: by version, successor keeps its skips, default from the annotation", []step{
			{ModeSemver, []NewBundle{testBundle("1.0.0", "", nil, "a,b", "")}, map[string][]string{"a": {"p.v1.0.0"}, "b": {"p.v1.0.0"}}, "a", ""},
			{ModeSemver, []NewBundle{testBundle("2.0.0", "nothing", nil, "a", ""), testBundle("1.5.0", "", nil, "a", "")},
				map[string][]string{"a": {"p.v1.0.0", "p.v1.5.0<p.v1.0.0", "p.v2.0.0<p.v1.5.0"}, "b": {"p.v1.0.0"}}, "a", ""},
			{ModeSemver, []NewBundle{testBundle("1.2.0", "", nil, "a", "b")},
				map[string][]string{"a": {"p.v1.0.0", "p.v1.5.0<p.v1.2.0", "p.v2.0.0<p.v1.5.0", "p.v1.2.0<p.v1.0.0"}, "b": {"p.v1.0.0"}}, "b", ""},
			{ModeSemver, []NewBundle{testBundle("1.2.0+1", "", nil, "c", "zz")}, nil, "", "the default channel (zz) does not exist"},
			{ModeSemver, []NewBundle{testBundle("3.0.0", "", nil, "b", ""), testBundle("3.0.0", "", nil, "b", "")}, nil, "", "bundle p.v3.0.0 is given twice"},
		}},
		{"semver-skippatch: lower patches skipped, nothing dropped", []step{
			{ModeSemverSkipPatch, []NewBundle{testBundle("0.2.0", "", nil, "a", ""), testBundle("0.3.0", "", nil, "a", ""), testBundle("0.3.1", "", nil, "a", ""), testBundle("0.3.2", "", nil, "a", "")},
				map[string][]string{"a": {"p.v0.2.0", "p.v0.3.0<p.v0.2.0", "p.v0.3.1<p.v0.2.0[p.v0.3.0]", "p.v0.3.2<p.v0.2.0[p.v0.3.0 p.v0.3.1]"}}, "a", ""},
			{ModeSemverSkipPatch, []NewBundle{testBundle("0.3.3", "", nil, "b", "")}, map[string][]string{"a": {"p.v0.2.0", "p.v0.3.0<p.v0.2.0", "p.v0.3.1<p.v0.2.0[p.v0.3.0]", "p.v0.3.2<p.v0.2.0[p.v0.3.0 p.v0.3.1]"}, "b": {"p.v0.3.3"}}, "a", ""},
			{ModeSemverSkipPatch, []NewBundle{testBundle("0.4.0", "", nil, "a", "")}, map[string][]string{"a": {"p.v0.2.0", "p.v0.3.0<p.v0.2.0", "p.v0.3.1<p.v0.2.0[p.v0.3.0]", "p.v0.3.2<p.v0.2.0[p.v0.3.0 p.v0.3.1]", "p.v0.4.0<p.v0.3.2"}, "b": {"p.v0.3.3"}}, "a", ""},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pkg *declcfg.DeclarativeConfig
			for i, s := range tc.steps {
				got, _, err := Add("p", pkg, s.add, WithMode(s.mode))
				if !requireStep(t, i, got, err, s.err, s.channels) {
					continue
				}
				require.Equal(t, s.def, got.Packages[0].DefaultChannel, "step %d", i)
				pkg = got
			}
		})
	}
}

// TestOverwriteLatest: a bundle of the same name replaces the channel
// head it names (replaces mode only); a bundle something replaces cannot
// be overwritten.
func TestOverwriteLatest(t *testing.T) {
	pkg, _, err := Add("p", nil, []NewBundle{testBundle("1.0.0", "", nil, "a", "a"), testBundle("1.1.0", "p.v1.0.0", nil, "a", "")})
	require.NoError(t, err)
	again := testBundle("1.1.0", "p.v1.0.0", nil, "a,b", "a")
	again.Bundle.Image = "img/rebuilt"
	got, _, err := Add("p", pkg, []NewBundle{again}, WithOverwriteLatest(true))
	require.NoError(t, err)
	require.Equal(t, map[string][]string{"a": {"p.v1.1.0<p.v1.0.0", "p.v1.0.0"}, "b": {"p.v1.1.0<p.v1.0.0", "p.v1.0.0"}}, entries(got))
	require.Len(t, got.Bundles, 2)
	require.Equal(t, "img/rebuilt", got.Bundles[1].Image)
	_, _, err = Add("p", pkg, []NewBundle{rebuilt(testBundle("1.0.0", "", nil, "a", ""))}, WithOverwriteLatest(true))
	require.ErrorContains(t, err, "Cannot overwrite a bundle that is not at the head of a channel")
	_, _, err = Add("p", pkg, []NewBundle{again}, WithOverwriteLatest(true), WithMode(ModeSemver))
	require.ErrorContains(t, err, "Bundle version 1.1.0 already added to index")
}

// TestPruneStranded drops the bundles no channel holds, and all bundles
// of a package without its olm.package blob.
func TestPruneStranded(t *testing.T) {
	pkg, _, err := Add("p", nil, []NewBundle{testBundle("1.0.0", "", nil, "a", "")})
	require.NoError(t, err)
	pkg.Bundles = append(pkg.Bundles, testBundle("0.5.0", "", nil, "a", "").Bundle)
	got, dropped := PruneStranded(pkg)
	require.Len(t, got.Bundles, 1)
	require.Equal(t, []string{"removed stranded bundle p.v0.5.0 of package p: no channel holds it"}, dropped)
	got, dropped = PruneStranded(&declcfg.DeclarativeConfig{Bundles: pkg.Bundles})
	require.Empty(t, got.Bundles)
	require.Len(t, dropped, 2)
	m, err := ParseMode("SEMVER")
	require.NoError(t, err)
	require.Equal(t, ModeSemver, m)
}
