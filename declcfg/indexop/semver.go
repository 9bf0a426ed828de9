package indexop

import (
	"fmt"
	"maps"
	"slices"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/quote"
)

// semver inserts each added bundle, lowest version first, into the
// channels of its annotations by version, as opm's semver modes did
// (AddBundleToGraph): it replaces the highest version below it, and the
// lowest version above it now replaces it (keeping its skips, which opm
// dropped); a channel new to the package holds only the bundle. With
// skipPatch it also skips the lower patch versions of its minor version
// (which stay in the channel; opm removed them and broke the channel).
// The CSVs' replaces and skips play no role (nor olm.substitutesFor),
// and a version equal to one in the channel but for build metadata is
// already there, as opm had it. Channels the bundle does not name are
// untouched.
func (g *graph) semver(existing []*node, byName map[string]*node, added []*node, skipPatch bool) error {
	g.channels = map[string]*declcfg.Channel{}
	for _, ch := range g.old.Channels {
		c := ch
		c.Entries = slices.Clone(ch.Entries)
		for i := range c.Entries {
			c.Entries[i].Skips = slices.Clone(c.Entries[i].Skips)
		}
		g.channels[ch.Name] = &c
	}
	byName = maps.Clone(byName)
	order := slices.Clone(added)
	slices.SortStableFunc(order, func(a, b *node) int { return compareVersions(a.version, b.version) })
	var setBy *node
	for _, n := range order {
		byName[n.name] = n
		for _, c := range n.channels {
			if err := g.insert(c, n, byName, skipPatch); err != nil {
				return err
			}
		}
		switch {
		case n.defaultChannel != "":
			g.setDefault(n.defaultChannel)
			setBy = n
		case g.defaultChannel == "":
			g.setDefault(slices.Min(n.channels))
			setBy = n
		}
	}
	if g.channels[g.defaultChannel] == nil {
		if setBy == nil {
			setBy = order[len(order)-1]
		}
		return bundleErr(setBy, "the default channel (%s) does not exist: failed to set default channel (%s) for package (%s): bundle %s names it, and no bundle of the package is in it",
			g.defaultChannel, g.defaultChannel, g.pkg, setBy.name)
	}
	g.nodes = append(slices.Clone(existing), added...)
	return nil
}

// insert puts n into channel c by version.
func (g *graph) insert(c string, n *node, byName map[string]*node, skipPatch bool) error {
	entry := declcfg.ChannelEntry{Name: n.name, SkipRange: n.skipRange}
	ch := g.channels[c]
	if ch == nil {
		g.channels[c] = &declcfg.Channel{Schema: declcfg.SchemaChannel, Name: c, Package: g.pkg, Entries: []declcfg.ChannelEntry{entry}}
		g.changes = append(g.changes, fmt.Sprintf("channel %s/%s: created with %s", quote.Name(g.pkg), quote.Name(c), quote.Name(n.name)))
		return nil
	}
	behind, ahead := -1, -1
	var patches []*node
	for i, e := range ch.Entries {
		m := byName[e.Name]
		if m == nil || m == n {
			continue
		}
		switch cmp := compareVersions(m.version, n.version); {
		case m.version.Compare(n.version) == 0: // build metadata aside, as opm compared
			return bundleErr(n, "Bundle version %s already added to index (bundle %s, channel %s/%s has %s)", n.version, n.name, g.pkg, c, m.name)
		case cmp < 0 && skipPatch && m.version.Major == n.version.Major && m.version.Minor == n.version.Minor:
			patches = append(patches, m)
		case cmp < 0:
			if behind < 0 || compareVersions(m.version, byName[ch.Entries[behind].Name].version) > 0 {
				behind = i
			}
		default:
			if ahead < 0 || compareVersions(m.version, byName[ch.Entries[ahead].Name].version) < 0 {
				ahead = i
			}
		}
	}
	what := quote.Name(n.name)
	if behind >= 0 {
		entry.Replaces = ch.Entries[behind].Name
		what += " replacing " + quote.Name(entry.Replaces)
	}
	slices.SortFunc(patches, func(a, b *node) int { return compareVersions(a.version, b.version) })
	for _, p := range patches {
		entry.Skips = append(entry.Skips, p.name)
	}
	if len(entry.Skips) > 0 {
		skips := make([]string, len(entry.Skips))
		for i, s := range entry.Skips {
			skips[i] = quote.Name(s)
		}
		what += fmt.Sprintf(", skipping %v", skips)
	}
	if ahead >= 0 {
		ch.Entries[ahead].Replaces = n.name
		what += ", replaced by " + quote.Name(ch.Entries[ahead].Name)
	}
	ch.Entries = append(ch.Entries, entry)
	g.changes = append(g.changes, fmt.Sprintf("channel %s/%s: added %s", quote.Name(g.pkg), quote.Name(c), what))
	return nil
}
