package declcfg

import (
	"fmt"

	"github.com/operator-catalog/olmcat/internal/manifest"
)

// MigrateToCSVMetadata applies opm's bundle-object-to-csv-metadata
// migration to the bundles of cfg, as opm render --migrate-level does to
// whatever it rendered (catalog directory, sqlite index or image): a
// bundle with an image and a CSV among its objects loses its
// olm.bundle.object properties and gains one olm.csv.metadata from the
// CSV, last; a bundle that already has olm.csv.metadata, or has no image
// or no CSV, is left as it is. Objects and CsvJSON are kept: they are
// not part of the blob.
func MigrateToCSVMetadata(cfg *DeclarativeConfig) error {
	for i := range cfg.Bundles {
		b := &cfg.Bundles[i]
		if b.Image == "" || b.CsvJSON == "" {
			continue
		}
		var props []Property
		has := false
		for _, p := range b.Properties {
			switch p.Type {
			case PropertyBundleObject:
			case PropertyCSVMetadata:
				has = true
			default:
				props = append(props, p)
			}
		}
		if has {
			continue
		}
		csv, err := manifest.ParseCSV([]byte(b.CsvJSON))
		if err != nil {
			return fmt.Errorf("bundle %s: %w", b.Name, err)
		}
		m, err := csv.Metadata()
		if err != nil {
			return fmt.Errorf("bundle %s: CSV metadata: %w", b.Name, err)
		}
		p, err := NewProperty(PropertyCSVMetadata, m)
		if err != nil {
			return fmt.Errorf("bundle %s: %w", b.Name, err)
		}
		b.Properties = append(props, p)
	}
	return nil
}
