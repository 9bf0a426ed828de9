package indexop

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/bundle"
	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/declcfg"
)

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
	var notes []string
	a := NewBundleAdd([]NewBundle{{Bundle: next, Meta: bundle.Metadata{Annotations: map[string]string{annotation.Package: "p", annotation.Channels: "a"}}}},
		true, func(line string) { notes = append(notes, line) }, WithEnableAlpha(true))
	_, err := a.Op().Apply("p", cfg)
	require.ErrorContains(t, err, `bundle p.v1: cyclic substitutesFor chain detected involving "p.v1"`)
	require.Empty(t, notes, "no bundle being added was left out")
}
