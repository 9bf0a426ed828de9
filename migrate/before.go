package migrate

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/legacy"
)

// legacyGraphs returns the package's upgrade graphs as the legacy database
// served them: every channel of the channel table with an entry per bundle
// that has a channel_entry row and an operatorbundle row (deprecated ones
// included), the edges opm derived (channelEdges) and the bundles'
// skipRange and version; deprecated bundles are listed in an
// olm.deprecations blob.
func legacyGraphs(pd *legacy.PackageData) *declcfg.DeclarativeConfig {
	cfg := &declcfg.DeclarativeConfig{Packages: []declcfg.Package{{
		Schema: declcfg.SchemaPackage, Name: pd.Package.Name, DefaultChannel: pd.Package.DefaultChannel}}}
	rows := make(map[string]*legacy.Bundle, len(pd.Bundles))
	for i := range pd.Bundles {
		rows[pd.Bundles[i].Name] = &pd.Bundles[i]
	}
	edgesByChannel, _ := channelEdges(pd.Entries, pd.TipDepth)
	channels := append([]legacy.Channel(nil), pd.Channels...)
	sort.Slice(channels, func(i, j int) bool { return channels[i].Name < channels[j].Name })
	for _, ch := range channels {
		out := declcfg.Channel{Schema: declcfg.SchemaChannel, Name: ch.Name, Package: pd.Package.Name}
		members := edgesByChannel[ch.Name]
		for _, b := range sortedKeys(members) {
			row := rows[b]
			if row == nil {
				continue // named by an edge only: not served
			}
			e := members[b]
			out.Entries = append(out.Entries, declcfg.ChannelEntry{Name: b, Replaces: e.replaces,
				Skips: append([]string(nil), e.skips...), SkipRange: row.SkipRange})
		}
		cfg.Channels = append(cfg.Channels, out)
	}
	dep := declcfg.Deprecation{Schema: declcfg.SchemaDeprecations, Package: pd.Package.Name}
	for i := range pd.Bundles {
		b := &pd.Bundles[i]
		v, _ := json.Marshal(declcfg.PackageValue{PackageName: pd.Package.Name, Version: b.Version})
		cfg.Bundles = append(cfg.Bundles, declcfg.Bundle{Schema: declcfg.SchemaBundle, Name: b.Name, Package: pd.Package.Name,
			Properties: []declcfg.Property{{Type: declcfg.PropertyPackage, Value: v}}})
		if b.Deprecated {
			dep.Entries = append(dep.Entries, declcfg.DeprecationEntry{
				Reference: declcfg.PackageScopedReference{Schema: declcfg.SchemaBundle, Name: b.Name},
				Message:   fmt.Sprintf("bundle %s was deprecated in the legacy index", b.Name)})
		}
	}
	if len(dep.Entries) > 0 {
		cfg.Deprecations = []declcfg.Deprecation{dep}
	}
	return cfg
}
