package legacyquery

import (
	"cmp"
	"slices"
)

// listRow is one ListBundles message before its bundle fields are filled.
type listRow struct {
	bundle   string
	pkg      string
	channel  string
	replaces string
	skips    []string
	// owner is the package whose read of the bundle is served.
	owner string
}

// markChain marks the real replaces chain: every entry reachable, along
// replaces, from the entries at the minimum depth of the whole
// channel_entry table (normally 0, the channel heads).
func (g *graph) markChain() {
	g.chain = newBitset(len(g.entries))
	if len(g.entries) == 0 {
		return
	}
	minDepth := g.entries[0].depth
	for i := range g.entries {
		minDepth = min(minDepth, g.entries[i].depth)
	}
	var stack []int32
	for i := range g.entries {
		if g.entries[i].depth == minDepth {
			g.chain.set(int32(i))
			stack = append(stack, int32(i))
		}
	}
	for len(stack) > 0 {
		e := &g.entries[stack[len(stack)-1]]
		stack = stack[:len(stack)-1]
		if !e.linked() || g.chain.has(e.replaces) {
			continue
		}
		g.chain.set(e.replaces)
		stack = append(stack, e.replaces)
	}
}

// eachRow calls fn with the ListBundles rows, computed the way opm's
// listBundlesQuery did:
//   - per (bundle, package, channel), replaces is the greatest name among
//     the entries replaced by that bundle's chain entries;
//   - skips are the names replaced by its entries that are not on the
//     chain (the synthetic skip edges), in entry order;
//   - only names with an operatorbundle row are listed.
//
// Rows come in (bundle, package, channel) order, the GROUP BY order of
// the sqlite query: name ids in order, since ids compare as names do.
// fn must not keep the row.
func (g *graph) eachRow(fn func(*listRow) error) error {
	var members []int32
	for b := range g.names {
		if g.owner[b] < 0 {
			continue
		}
		// The bundle's entries, in entry order, grouped by (package,
		// channel): a stable sort keeps entry order within a group.
		members = append(members[:0], g.byBundle.of(int32(b))...)
		slices.SortStableFunc(members, func(x, y int32) int {
			ex, ey := &g.entries[x], &g.entries[y]
			return cmp.Or(cmp.Compare(ex.pkg, ey.pkg), cmp.Compare(ex.channel, ey.channel))
		})
		for len(members) > 0 {
			n := 1
			first := &g.entries[members[0]]
			for n < len(members) && g.entries[members[n]].pkg == first.pkg && g.entries[members[n]].channel == first.channel {
				n++
			}
			r := g.row(members[:n])
			r.owner = g.names[g.owner[b]]
			if err := fn(&r); err != nil {
				return err
			}
			members = members[n:]
		}
	}
	return nil
}

// row is the ListBundles row of one (bundle, package, channel) group of
// entries, given in entry order.
func (g *graph) row(group []int32) listRow {
	first := &g.entries[group[0]]
	r := listRow{bundle: g.names[first.bundle], pkg: g.names[first.pkg], channel: g.names[first.channel]}
	best := int32(-1)
	for _, i := range group {
		e := &g.entries[i]
		if !e.linked() {
			continue
		}
		target := g.entries[e.replaces].bundle
		if g.chain.has(i) {
			best = max(best, target)
		} else {
			r.skips = append(r.skips, g.names[target])
		}
	}
	if best >= 0 {
		r.replaces = g.names[best]
	}
	return r
}
