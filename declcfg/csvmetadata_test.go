package declcfg

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMigrateToCSVMetadata: opm's bundle-object-to-csv-metadata on
// rendered bundles: objects replaced by one olm.csv.metadata, last; a
// bundle without image, without CSV or with olm.csv.metadata already is
// left as it is.
func TestMigrateToCSVMetadata(t *testing.T) {
	csv := `{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"name":"a.v1","annotations":{"k":"v"}},"spec":{"displayName":"A","version":"1.0.0"}}`
	pkgProp := MustProperty(PropertyPackage, PackageValue{PackageName: "a", Version: "1.0.0"})
	obj := MustProperty(PropertyBundleObject, BundleObjectValue{Data: []byte(csv)})
	meta := Property{Type: PropertyCSVMetadata, Value: []byte(`{"displayName":"kept"}`)}
	for _, tc := range []struct {
		name  string
		in    Bundle
		types []string // property types after
	}{
		{"image and CSV", Bundle{Name: "a.v1", Image: "r/a:1", CsvJSON: csv, Properties: []Property{obj, pkgProp}}, []string{PropertyPackage, PropertyCSVMetadata}},
		{"no image", Bundle{Name: "a.v1", CsvJSON: csv, Properties: []Property{obj, pkgProp}}, []string{PropertyBundleObject, PropertyPackage}},
		{"no CSV", Bundle{Name: "a.v1", Image: "r/a:1", Properties: []Property{pkgProp}}, []string{PropertyPackage}},
		{"already migrated", Bundle{Name: "a.v1", Image: "r/a:1", CsvJSON: csv, Properties: []Property{obj, meta}}, []string{PropertyBundleObject, PropertyCSVMetadata}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &DeclarativeConfig{Bundles: []Bundle{tc.in}}
			require.NoError(t, MigrateToCSVMetadata(cfg))
			var types []string
			for _, p := range cfg.Bundles[0].Properties {
				types = append(types, p.Type)
			}
			require.Equal(t, tc.types, types)
			if tc.name == "image and CSV" {
				var m CSVMetadataValue
				require.NoError(t, cfg.Bundles[0].Properties[1].ParseValue(&m))
				require.Equal(t, "A", m.DisplayName)
			}
		})
	}
	cfg := &DeclarativeConfig{Bundles: []Bundle{{Name: "bad", Image: "r/b:1", CsvJSON: "{"}}}
	require.ErrorContains(t, MigrateToCSVMetadata(cfg), "bundle bad")
}
