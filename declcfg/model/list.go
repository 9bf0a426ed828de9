package model

import (
	"encoding/json"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg"
)

// PackageRow is one line of opm alpha list packages.
type PackageRow struct {
	Name string
	// DisplayName is spec.displayName of the CSV of the default channel's
	// head ("" when that bundle carries no CSV).
	DisplayName    string
	DefaultChannel string
}

// ChannelRow is one line of opm alpha list channels.
type ChannelRow struct {
	Package, Channel string
	// Head is the channel head; HeadErr says why there is none.
	Head    string
	HeadErr error
}

// BundleRow is one line of opm alpha list bundles: a bundle's entry in
// one channel.
type BundleRow struct {
	Package, Channel, Bundle, Replaces string
	Skips                              []string
	SkipRange, Image                   string
}

// ListPackages returns the packages of m sorted by name, as opm alpha list
// packages lists them.
func ListPackages(m *Model) []PackageRow {
	var rows []PackageRow
	for _, name := range sortedKeys(m.Packages) {
		p := m.Packages[name]
		row := PackageRow{Name: name}
		if p.DefaultChannel != nil {
			row.DefaultChannel = p.DefaultChannel.Name
			if h, err := p.DefaultChannel.Head(); err == nil {
				row.DisplayName = csvDisplayName(h)
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// ListChannels returns the channels of m (of package pkg only, when not
// ""), sorted by package then channel name.
func ListChannels(m *Model, pkg string) []ChannelRow {
	var rows []ChannelRow
	for _, p := range listedPackages(m, pkg) {
		for _, name := range sortedKeys(p.Channels) {
			row := ChannelRow{Package: p.Name, Channel: name}
			if h, err := p.Channels[name].Head(); err != nil {
				row.HeadErr = err
			} else {
				row.Head = h.Name
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// ListBundles returns every bundle entry of m (of package pkg only, when
// not ""), sorted by package, channel and bundle name.
func ListBundles(m *Model, pkg string) []BundleRow {
	var rows []BundleRow
	for _, p := range listedPackages(m, pkg) {
		for _, cname := range sortedKeys(p.Channels) {
			c := p.Channels[cname]
			for _, bname := range sortedKeys(c.Bundles) {
				b := c.Bundles[bname]
				rows = append(rows, BundleRow{Package: p.Name, Channel: cname, Bundle: bname, Replaces: b.Replaces,
					Skips: b.Skips, SkipRange: b.SkipRange, Image: b.Image})
			}
		}
	}
	return rows
}

// listedPackages is every package of m sorted by name, or only pkg (nil
// when m has no such package).
func listedPackages(m *Model, pkg string) []*Package {
	if pkg != "" {
		if p, ok := m.Packages[pkg]; ok {
			return []*Package{p}
		}
		return nil
	}
	ps := make([]*Package, 0, len(m.Packages))
	for _, name := range sortedKeys(m.Packages) {
		ps = append(ps, m.Packages[name])
	}
	return ps
}

// csvDisplayName is spec.displayName of b's CSV: from its CSV object, or
// from its olm.csv.metadata property.
func csvDisplayName(b *Bundle) string {
	var csv struct {
		Spec struct {
			DisplayName string `json:"displayName"`
		} `json:"spec"`
	}
	if b.CsvJSON != "" && json.Unmarshal([]byte(b.CsvJSON), &csv) == nil {
		return csv.Spec.DisplayName
	}
	for _, p := range b.Properties {
		switch p.Type {
		case declcfg.PropertyCSVMetadata:
			var meta struct {
				DisplayName string `json:"displayName"`
			}
			if p.ParseValue(&meta) == nil {
				return meta.DisplayName
			}
		case declcfg.PropertyBundleObject:
			var v declcfg.BundleObjectValue
			if err := p.ParseValue(&v); err != nil || !strings.Contains(string(v.Data), "ClusterServiceVersion") {
				continue
			}
			var obj struct {
				Kind string `json:"kind"`
			}
			if json.Unmarshal(v.Data, &obj) == nil && obj.Kind == "ClusterServiceVersion" && json.Unmarshal(v.Data, &csv) == nil {
				return csv.Spec.DisplayName
			}
		}
	}
	return ""
}
