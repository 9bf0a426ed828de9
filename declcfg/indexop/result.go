package indexop

import (
	"encoding/base64"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/internal/quote"
)

// result assembles the package's blobs: its olm.package blob with the new
// default channel (icon and description from that channel's head CSV,
// as opm's render took them), the channels by name, the bundles kept,
// and the package's other blobs unchanged.
func (g *graph) result(added []*node) (*declcfg.DeclarativeConfig, []string, error) {
	out := &declcfg.DeclarativeConfig{
		Deprecations: slices.Clone(g.old.Deprecations),
		Others:       slices.Clone(g.old.Others),
	}
	p := declcfg.Package{Schema: declcfg.SchemaPackage, Name: g.pkg}
	if len(g.old.Packages) > 0 {
		p = g.old.Packages[0]
	} else {
		g.changes = append([]string{fmt.Sprintf("created package %s (default channel %s)", quote.Name(g.pkg), quote.Name(g.defaultChannel))}, g.changes...)
	}
	p.DefaultChannel = g.defaultChannel
	for _, c := range slices.Sorted(maps.Keys(g.channels)) {
		ch := *g.channels[c]
		for _, old := range g.old.Channels {
			if old.Name == c {
				ch.Properties, ch.Origin = old.Properties, old.Origin
			}
		}
		out.Channels = append(out.Channels, ch)
	}
	for _, n := range g.nodes {
		out.Bundles = append(out.Bundles, *n.blob)
	}
	if head := g.head(g.channels[p.DefaultChannel]); head != nil && head.blob.CsvJSON != "" {
		if err := packageMeta(&p, head.blob); err != nil {
			g.changes = append(g.changes, fmt.Sprintf("package %s: no icon or description: %v", quote.Name(g.pkg), err))
		}
	}
	out.Packages = []declcfg.Package{p}
	for _, n := range added {
		g.changes = append(g.changes, fmt.Sprintf("added bundle %s to package %s (channels %s)", quote.Name(n.name), quote.Name(g.pkg), quote.Name(strings.Join(n.channels, ","))))
	}
	return out, g.changes, nil
}

// head is the bundle heading ch.
func (g *graph) head(ch *declcfg.Channel) *node {
	if ch == nil {
		return nil
	}
	name := ChannelHead(*ch)
	for _, n := range g.nodes {
		if n.name == name {
			return n
		}
	}
	return nil
}

// ChannelHead is the first entry of ch that no entry replaces or skips
// ("" if there is none): the channel's head in a valid channel.
func ChannelHead(ch declcfg.Channel) string {
	below := map[string]bool{}
	for _, e := range ch.Entries {
		below[e.Replaces] = true
		for _, s := range e.Skips {
			below[s] = true
		}
	}
	for _, e := range ch.Entries {
		if !below[e.Name] {
			return e.Name
		}
	}
	return ""
}

// packageMeta sets the package's description and icon from the CSV of
// b, the default channel's head, as opm's render of a database did
// (spec.description, spec.icon[0]; an icon that is not base64 is none).
func packageMeta(p *declcfg.Package, b *declcfg.Bundle) error {
	csv, err := manifest.ParseCSV([]byte(b.CsvJSON))
	if err != nil {
		return err
	}
	desc, err := csv.Description()
	if err != nil {
		return err
	}
	icons, err := csv.Icons()
	if err != nil {
		return err
	}
	p.Description, p.Icon = desc, nil
	if len(icons) == 0 {
		return nil
	}
	raw, err := base64.StdEncoding.DecodeString(icons[0].Data)
	if err != nil {
		raw, err = base64.StdEncoding.DecodeString(strings.ReplaceAll(icons[0].Data, " ", ""))
	}
	if err != nil {
		return fmt.Errorf("spec.icon[0] of %s is not base64: %w", b.Name, err)
	}
	if len(raw) > 0 {
		p.Icon = &declcfg.Icon{Data: raw, MediaType: icons[0].MediaType}
	}
	return nil
}
