package v1check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/indexop"
)

// UpgradeGap is an installed bundle OLM v0 upgrades along one of its
// channels to the channel's head and OLM v1 does not: OLM v1 stays at it
// (Stalled), or its upgrades, one resolution at a time, stop at Stops, a
// bundle that heads none of its channels.
type UpgradeGap struct {
	Installed string `json:"installed"`
	// V0Next are the entries OLM v0 may upgrade it to, each with its
	// channel ("name (channel)").
	V0Next []string `json:"v0Next"`
	// V0Heads are the heads of its channels, where OLM v0's upgrades end.
	V0Heads []string `json:"v0Heads"`
	Stalled bool     `json:"stalled,omitempty"`
	Stops   string   `json:"stops"`
}

// String says what OLM v1 does from the installed bundle.
func (g UpgradeGap) String() string {
	v0 := fmt.Sprintf("OLM v0 upgrades %s to %s, on to %s", g.Installed, strings.Join(g.V0Next, ", "), strings.Join(g.V0Heads, ", "))
	if g.Stalled {
		return v0 + "; OLM v1 stays at " + g.Installed + ": every entry that replaces, skips or skipRanges it ranks below it (a lower version, or deprecated)"
	}
	return fmt.Sprintf("%s; OLM v1's upgrades stop at %s", v0, g.Stops)
}

// graph is a package's channel entries as operator-controller's
// successor filter reads them.
type graph struct {
	channels []declcfg.Channel
	byName   map[string]candidate
	ranges   map[string]semver.Range // by skipRange; nil: invalid, ignored
	next     map[string]string       // memo of step
	ends     map[string]string       // memo of end
}

// upgradeGaps lists the gaps of the package's installable bundles, cs
// ranked (cs[0] is the pick).
func upgradeGaps(chs []declcfg.Channel, cs []candidate) []UpgradeGap {
	g := &graph{channels: chs, byName: map[string]candidate{}, ranges: map[string]semver.Range{}, next: map[string]string{}, ends: map[string]string{}}
	for _, c := range cs {
		g.byName[c.b.Name] = c
	}
	pick := cs[0].b.Name
	var out []UpgradeGap
	for _, c := range slices.SortedFunc(slices.Values(cs), func(a, b candidate) int { return strings.Compare(a.b.Name, b.b.Name) }) {
		name := c.b.Name
		if name == pick || c.err != nil {
			continue
		}
		v0, heads, headNames := g.v0Next(c)
		if len(v0) == 0 {
			continue
		}
		end := g.end(name)
		if end == pick || slices.Contains(headNames, end) {
			continue
		}
		out = append(out, UpgradeGap{Installed: name, V0Next: v0, V0Heads: heads, Stalled: end == name, Stops: end})
	}
	return out
}

// succeeds says whether entry e is a successor of installed bundle c:
// it replaces it, skips it, or its skipRange (when valid) holds its
// version.
func (g *graph) succeeds(e declcfg.ChannelEntry, c candidate) bool {
	if e.Replaces == c.b.Name || slices.Contains(e.Skips, c.b.Name) {
		return true
	}
	if e.SkipRange == "" || c.err != nil {
		return false
	}
	r, ok := g.ranges[e.SkipRange]
	if !ok {
		r, _ = semver.ParseRange(e.SkipRange)
		g.ranges[e.SkipRange] = r
	}
	return r != nil && r(c.vr.version)
}

// v0Next lists the successors of c in the channels holding it, where
// OLM v0 upgrades it (a subscription follows one channel), and the
// heads of those channels, where its upgrades end (as "name (channel)",
// and by name).
func (g *graph) v0Next(c candidate) (next, heads, headNames []string) {
	for _, ch := range g.channels {
		if !slices.ContainsFunc(ch.Entries, func(e declcfg.ChannelEntry) bool { return e.Name == c.b.Name }) {
			continue
		}
		found := false
		for _, e := range ch.Entries {
			if e.Name != c.b.Name && g.succeeds(e, c) {
				next = append(next, fmt.Sprintf("%s (%s)", e.Name, ch.Name))
				found = true
			}
		}
		if head := indexop.ChannelHead(ch); found && head != "" {
			heads = append(heads, fmt.Sprintf("%s (%s)", head, ch.Name))
			headNames = append(headNames, head)
		}
	}
	return next, heads, headNames
}

// step is the bundle operator-controller upgrades installed to in one
// resolution: the best-ranked of the bundles of its version and release
// and the entries of every channel that succeed it.
func (g *graph) step(installed string) string {
	if n, ok := g.next[installed]; ok {
		return n
	}
	c := g.byName[installed]
	var allowed []candidate
	for _, o := range g.byName {
		if o.err == nil && c.err == nil && o.vr.compare(c.vr) == 0 {
			allowed = append(allowed, o)
		}
	}
	for _, ch := range g.channels {
		for _, e := range ch.Entries {
			if o, ok := g.byName[e.Name]; ok && g.succeeds(e, c) && !slices.ContainsFunc(allowed, func(a candidate) bool { return a.b.Name == e.Name }) {
				allowed = append(allowed, o)
			}
		}
	}
	slices.SortFunc(allowed, func(a, b candidate) int { return strings.Compare(a.b.Name, b.b.Name) })
	rank(allowed)
	n := installed
	if len(allowed) > 0 && allowed[0].vr.compare(c.vr) != 0 {
		n = allowed[0].b.Name
	}
	g.next[installed] = n
	return n
}

// end is where OLM v1's upgrades from installed stop.
func (g *graph) end(installed string) string {
	if e, ok := g.ends[installed]; ok {
		return e
	}
	g.ends[installed] = installed // a cycle ends where it started
	seen := map[string]bool{installed: true}
	cur := installed
	for {
		n := g.step(cur)
		if n == cur || seen[n] {
			break
		}
		if e, ok := g.ends[n]; ok && e != n {
			cur = e
			break
		}
		seen[n] = true
		cur = n
	}
	g.ends[installed] = cur
	return cur
}
