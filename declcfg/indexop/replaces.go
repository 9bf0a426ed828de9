package indexop

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/quote"
)

// graph is the package being rebuilt.
type graph struct {
	pkg            string
	old            *declcfg.DeclarativeConfig
	defaultChannel string
	nodes          []*node                     // the bundles of the result
	channels       map[string]*declcfg.Channel // the channels of the result
	changes        []string
}

// replaces recomputes the whole package as opm's replaces mode did
// (SemverPackageManifest, then addPackageChannels): each channel named
// by a bundle is headed by its highest version and holds what the
// head's replaces chain and skips reach; the default channel is the one
// the highest bundle proposes.
func (g *graph) replaces(existing, added []*node) error {
	all := append(slices.Clone(existing), added...)
	heads, err := channelHeads(all)
	if err != nil {
		return err
	}
	if err := g.replacesDefault(all, heads); err != nil {
		return err
	}
	byName := map[string]*node{}
	for _, n := range all {
		byName[n.name] = n
	}
	g.channels = map[string]*declcfg.Channel{}
	for _, c := range slices.Sorted(maps.Keys(heads)) {
		ch, err := walkChannel(g.pkg, c, heads[c], byName)
		if err != nil {
			return err
		}
		g.channels[c] = ch
	}
	for _, n := range added {
		for _, c := range n.channels {
			if !hasEntry(g.channels[c], n.name) {
				h := heads[c]
				return bundleErr(n, "add prunes bundle %s (%s) from package %s, channel %s: this may be due to incorrect channel head (%s, skips/replaces %v). Be aware that the head of the channel %s where you are trying to add the %s is %s. Upgrade graphs follows the Semantic Versioning 2.0.0 (https://semver.org/) which means that is not possible add new versions lower then the head of the channel",
					n.name, n.blob.Image, g.pkg, c, h.name, append([]string{h.replaces}, h.skips...), c, n.name, h.name)
			}
		}
	}
	for _, n := range all {
		if g.inAnyChannel(n.name) {
			g.nodes = append(g.nodes, n)
		} else {
			g.changes = append(g.changes, fmt.Sprintf("package %s: bundle %s left out: no channel's replaces chain or skips reach it any more (opm's database kept it as a stranded row)", quote.Name(g.pkg), quote.Name(n.name)))
		}
	}
	return nil
}

// channelHeads maps every channel a bundle is in to its highest bundle.
func channelHeads(all []*node) (map[string]*node, error) {
	heads := map[string]*node{}
	tied := map[string]*node{}
	var max, maxTie *node
	for _, n := range all {
		for _, c := range n.channels {
			switch h := heads[c]; {
			case h == nil || compareVersions(n.version, h.version) > 0:
				heads[c], tied[c] = n, nil
			case compareVersions(n.version, h.version) == 0:
				tied[c] = n
			}
		}
		switch {
		case max == nil || compareVersions(n.version, max.version) > 0:
			max, maxTie = n, nil
		case compareVersions(n.version, max.version) == 0:
			maxTie = n
		}
	}
	for _, c := range slices.Sorted(maps.Keys(tied)) {
		if t := tied[c]; t != nil {
			return nil, bundleErr(t, "more than one potential channel head for %s (%s and %s, version %s)", c, heads[c].name, t.name, t.version)
		}
	}
	if maxTie != nil {
		return nil, bundleErr(maxTie, "more than one bundle with maximum version %s (%s and %s)", max.version, max.name, maxTie.name)
	}
	return heads, nil
}

// replacesDefault sets the default channel as SemverPackageManifest did:
// the default channel annotation of the highest bundle (existing bundles
// propose the package's current default), else the only channel.
func (g *graph) replacesDefault(all []*node, heads map[string]*node) error {
	var max *node
	candidate := ""
	for _, n := range all {
		if max == nil || compareVersions(n.version, max.version) >= 0 {
			max = n
			if n.defaultChannel != "" {
				candidate = n.defaultChannel
			}
		}
	}
	if candidate == "" && len(heads) == 1 {
		for c := range heads {
			candidate = c
		}
	}
	if heads[candidate] == nil {
		var hs []string
		for _, c := range slices.Sorted(maps.Keys(heads)) {
			hs = append(hs, c+":"+heads[c].name)
		}
		return bundleErr(max, "unable to determine default channel among channel heads: map[%s] (package %s, highest bundle %s proposes %q)",
			strings.Join(hs, " "), g.pkg, max.name, candidate)
	}
	g.setDefault(candidate)
	return nil
}

func (g *graph) setDefault(c string) {
	if c != g.defaultChannel && g.defaultChannel != "" {
		g.changes = append(g.changes, fmt.Sprintf("package %s: default channel %s -> %s", quote.Name(g.pkg), quote.Name(g.defaultChannel), quote.Name(c)))
	}
	g.defaultChannel = c
}

// walkChannel builds channel c from its head as addPackageChannels did:
// follow replaces down the chain, each skipped name a member too, and
// render it as opm's query did (an entry per bundle that exists, its
// replaces from the chain, its skips from its own walk step).
func walkChannel(pkg, c string, head *node, byName map[string]*node) (*declcfg.Channel, error) {
	ch := &declcfg.Channel{Schema: declcfg.SchemaChannel, Name: c, Package: pkg}
	at := map[string]int{}
	ensure := func(name string) *declcfg.ChannelEntry {
		n := byName[name]
		if n == nil {
			return nil
		}
		if i, ok := at[name]; ok {
			return &ch.Entries[i]
		}
		at[name] = len(ch.Entries)
		ch.Entries = append(ch.Entries, declcfg.ChannelEntry{Name: name, SkipRange: n.skipRange})
		return &ch.Entries[len(ch.Entries)-1]
	}
	seen := map[string]bool{head.name: true}
	for x := head; ; {
		ensure(x.name)
		for _, s := range x.skips {
			ensure(s)
			e := &ch.Entries[at[x.name]]
			e.Skips = append(e.Skips, s)
		}
		if x.replaces == "" {
			break
		}
		ensure(x.replaces)
		ch.Entries[at[x.name]].Replaces = x.replaces
		if seen[x.replaces] {
			return nil, bundleErr(x, "Cycle detected, %s replaces %s (package %s, channel %s)", x.name, x.replaces, pkg, c)
		}
		seen[x.replaces] = true
		r := byName[x.replaces]
		if r == nil {
			if x.isNew {
				return nil, bundleErr(x, "Invalid bundle %s, replaces nonexistent bundle %s (package %s, channel %s)", head.name, x.replaces, pkg, c)
			}
			break // an existing tail: the catalog already had this edge
		}
		x = r
	}
	return ch, nil
}

func hasEntry(ch *declcfg.Channel, name string) bool {
	if ch == nil {
		return false
	}
	for _, e := range ch.Entries {
		if e.Name == name {
			return true
		}
	}
	return false
}

func (g *graph) inAnyChannel(name string) bool {
	for _, ch := range g.channels {
		if hasEntry(ch, name) {
			return true
		}
	}
	return false
}
