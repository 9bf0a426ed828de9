package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/bundle"
	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/indexop"
)

// TestAddSubstitutesFor: olmcat add refuses a bundle directory whose CSV
// carries olm.substitutesFor without --enable-alpha (exit 1, the catalog
// untouched) and applies it with the flag, as the recorded opm registry
// add --enable-alpha did (fixtures/opmindex/prometheus-substitutes-0.15.0).
func TestAddSubstitutesFor(t *testing.T) {
	cat := filepath.Join(t.TempDir(), "catalog")
	copyTree(t, "../../fixtures/legacy/edge-before-substitutes/opm-migrate", cat)
	sub := filepath.Join(fixtureBundles, "opm-bundles/prometheus.0.15.0.substitutesfor")
	before := snapshotTree(t, cat)
	_, stderr, code := runCLI(t, "add", cat, sub)
	require.Equal(t, exitInvalid, code, stderr)
	require.Contains(t, stderr, "bundle prometheusoperator.0.15.0+1-freshmaker-rebuild: SubstitutesFor is an alpha-only feature")
	require.Equal(t, before, snapshotTree(t, cat), "a refused add writes nothing")

	_, stderr, code = runCLI(t, "add", cat, sub, "--enable-alpha")
	require.Equal(t, 0, code, stderr)
	const (
		v140 = "prometheusoperator.0.14.0"
		v150 = "prometheusoperator.0.15.0"
		sub1 = "prometheusoperator.0.15.0+1-freshmaker-rebuild"
	)
	rebuilt := declcfg.ChannelEntry{Name: sub1, Replaces: v140, Skips: []string{v150}}
	require.Equal(t, map[string][]declcfg.ChannelEntry{
		"preview": {{Name: v140}, {Name: v150}, rebuilt, {Name: "prometheusoperator.0.22.2", Replaces: sub1}},
		"stable":  {{Name: v140}, {Name: v150}, rebuilt},
	}, channelEntries(t, cat, "prometheus"))
}

// TestPermissiveExistingBundleError: --permissive leaves out only
// bundles being added; an error about a bundle already in the catalog
// (a cyclic olm.substitutesFor between two of its bundles) fails the add
// at once instead of retrying forever.
func TestPermissiveExistingBundleError(t *testing.T) {
	blob := func(name, version, substitutesFor string) declcfg.Bundle {
		csv := `{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"name":"` + name +
			`","annotations":{"olm.substitutesFor":"` + substitutesFor + `"}},"spec":{"version":"` + version + `"}}`
		return declcfg.Bundle{Schema: declcfg.SchemaBundle, Name: name, Package: "p", Image: "img/" + name, CsvJSON: csv,
			Properties: []declcfg.Property{declcfg.MustProperty(declcfg.PropertyPackage, declcfg.PackageValue{PackageName: "p", Version: version})}}
	}
	cfg := &declcfg.DeclarativeConfig{
		Packages: []declcfg.Package{{Schema: declcfg.SchemaPackage, Name: "p", DefaultChannel: "a"}},
		Channels: []declcfg.Channel{{Schema: declcfg.SchemaChannel, Name: "a", Package: "p", Entries: []declcfg.ChannelEntry{{Name: "p.v1"}, {Name: "p.v2", Replaces: "p.v1"}}}},
		Bundles:  []declcfg.Bundle{blob("p.v1", "1.0.0", "p.v2"), blob("p.v2", "2.0.0", "p.v1")},
	}
	next := blob("p.v3", "3.0.0", "")
	next.CsvJSON = `{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"name":"p.v3"},"spec":{"version":"3.0.0","replaces":"p.v2"}}`
	var stderr strings.Builder
	a := &bundleAdd{permissive: true, stderr: &stderr, opts: []indexop.Option{indexop.WithEnableAlpha(true)},
		byPkg: map[string][]indexop.NewBundle{"p": {{Bundle: next, Meta: bundle.Metadata{Annotations: map[string]string{annotation.Package: "p", annotation.Channels: "a"}}}}}}
	_, err := a.addTo("p", cfg)
	require.ErrorContains(t, err, `bundle p.v1: cyclic substitutesFor chain detected involving "p.v1"`)
	require.Empty(t, stderr.String(), "no bundle being added was left out")
}
