package declcfg

import (
	"fmt"

	"github.com/operator-catalog/olmcat/internal/manifest"
)

// AddBundle adds the bundle b, read with BundleFromFS (meta is what it
// returned), to cfg as opm alpha add did: the package blob is created
// when the package is new (default channel from the annotations, else
// the first channel), each channel of the annotations gets an entry with
// the CSV's replaces, skips and olm.skipRange (the channel blob is created
// when new), and the olm.bundle blob is appended. A bundle name already
// in the package is an error. It returns one line per change made; the
// caller validates the result before writing anything.
func AddBundle(cfg *DeclarativeConfig, b Bundle, meta BundleMetadata) ([]string, error) {
	csv, err := manifest.ParseCSV([]byte(b.CsvJSON))
	if err != nil {
		return nil, fmt.Errorf("add %s: CSV: %w", b.Name, err)
	}
	entry := ChannelEntry{Name: b.Name, SkipRange: csv.Annotation("olm.skipRange")}
	if entry.Replaces, err = csv.Replaces(); err != nil {
		return nil, fmt.Errorf("add %s: %w", b.Name, err)
	}
	if entry.Skips, err = csv.Skips(); err != nil {
		return nil, fmt.Errorf("add %s: %w", b.Name, err)
	}
	channels := meta.Channels()
	if len(channels) == 0 {
		return nil, fmt.Errorf("add %s: the annotations name no channel (%s)", b.Name, AnnotationChannels)
	}
	for _, have := range cfg.Bundles {
		if have.Package == b.Package && have.Name == b.Name {
			return nil, fmt.Errorf("add %s: package %s already has a bundle named %s", b.Name, b.Package, b.Name)
		}
	}
	var changes []string
	if !hasPackage(cfg, b.Package) {
		def := meta.DefaultChannel()
		if def == "" {
			def = channels[0]
		}
		cfg.Packages = append(cfg.Packages, Package{Schema: SchemaPackage, Name: b.Package, DefaultChannel: def})
		changes = append(changes, fmt.Sprintf("created package %s (default channel %s)", b.Package, def))
	}
	for _, ch := range channels {
		changes = append(changes, addEntry(cfg, b.Package, ch, entry))
	}
	cfg.Bundles = append(cfg.Bundles, b)
	return append(changes, fmt.Sprintf("added bundle %s to package %s", b.Name, b.Package)), nil
}

func hasPackage(cfg *DeclarativeConfig, name string) bool {
	for _, p := range cfg.Packages {
		if p.Name == name {
			return true
		}
	}
	return false
}

// addEntry appends entry to the channel, creating the channel blob when
// the package has none of that name, and says what it did.
func addEntry(cfg *DeclarativeConfig, pkg, channel string, entry ChannelEntry) string {
	what := entry.Name
	if entry.Replaces != "" {
		what += " replacing " + entry.Replaces
	}
	if len(entry.Skips) > 0 {
		what += fmt.Sprintf(", skipping %v", entry.Skips)
	}
	if entry.SkipRange != "" {
		what += ", skipRange " + entry.SkipRange
	}
	for i := range cfg.Channels {
		if c := &cfg.Channels[i]; c.Package == pkg && c.Name == channel {
			c.Entries = append(c.Entries, entry)
			return fmt.Sprintf("channel %s/%s: added %s", pkg, channel, what)
		}
	}
	cfg.Channels = append(cfg.Channels, Channel{Schema: SchemaChannel, Package: pkg, Name: channel, Entries: []ChannelEntry{entry}})
	return fmt.Sprintf("created channel %s/%s with %s", pkg, channel, what)
}
