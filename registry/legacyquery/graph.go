package legacyquery

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/operator-catalog/olmcat/legacy"
)

// graph is the catalog's update graph: every channel entry of every
// package, linked, with the lookups the cross-package RPCs need. It holds
// names and entry ids only, never bundle metadata.
type graph struct {
	// entries are every entry, in entry_id order (the slice is not
	// grown after readGraph: the lookups below point into it).
	entries []entry
	// byBundle lists the entries naming a bundle, by entry id.
	byBundle map[string][]*entry
	// replacedBy lists, by entry id, the entries whose replaces names an
	// entry of the given bundle name (real and synthetic skip edges).
	replacedBy map[string][]*entry
	// owner is, for every bundle with an operatorbundle row named by an
	// entry, the first package by name whose entries name it: the
	// package whose read of the bundle is served.
	owner map[string]string
	// rows are the ListBundles rows in (bundle, package, channel) order.
	rows []listRow
}

// graph reads and links the catalog's entries once.
func (q *Querier) graph(ctx context.Context) (*graph, error) {
	q.graphOnce.Do(func() {
		q.graphVal, q.graphErr = readGraph(ctx, q.db)
		if q.graphErr != nil {
			q.graphErr = fmt.Errorf("index %s: %w", q.db.Path(), q.graphErr)
		}
	})
	return q.graphVal, q.graphErr
}

// readGraph reads channel_entry and the bundle names and links them.
func readGraph(ctx context.Context, db *legacy.DB) (*graph, error) {
	names, err := db.BundleNames(ctx)
	if err != nil {
		return nil, err
	}
	hasRow := make(map[string]bool, len(names))
	for _, n := range names {
		hasRow[n] = true
	}
	g := &graph{
		byBundle:   map[string][]*entry{},
		replacedBy: map[string][]*entry{},
		owner:      map[string]string{},
	}
	// Names repeat across entries (a bundle in several channels, every
	// entry of a package): every entry and lookup key shares one copy.
	shared := make(map[string]string, len(names))
	intern := func(s string) string {
		if c, ok := shared[s]; ok {
			return c
		}
		shared[s] = s
		return s
	}
	err = db.Entries(ctx, func(e legacy.ChannelEntry) error {
		e.Package, e.Channel, e.Bundle = intern(e.Package), intern(e.Channel), intern(e.Bundle)
		g.entries = append(g.entries, entry{id: e.ID, pkg: e.Package, channel: e.Channel, bundle: e.Bundle, replaces: e.Replaces, depth: e.Depth})
		if hasRow[e.Bundle] {
			if o, ok := g.owner[e.Bundle]; !ok || e.Package < o {
				g.owner[e.Bundle] = e.Package
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	g.entries = slices.Clip(g.entries)
	g.link()
	return g, nil
}

// entry is the entry with the id; nil when there is none.
func (g *graph) entry(id int64) *entry {
	i, ok := slices.BinarySearchFunc(g.entries, id, func(e entry, id int64) int { return cmp.Compare(e.id, id) })
	if !ok {
		return nil
	}
	return &g.entries[i]
}

// link builds the lookup indexes and the ListBundles rows once every
// entry is known.
func (g *graph) link() {
	for i := range g.entries {
		e := &g.entries[i]
		if e.replaces != 0 {
			if t := g.entry(e.replaces); t != nil {
				e.linked = true
				e.replacesName = t.bundle
				g.replacedBy[t.bundle] = append(g.replacedBy[t.bundle], e)
			}
		}
		g.byBundle[e.bundle] = append(g.byBundle[e.bundle], e)
	}
	g.rows = g.listRows()
}

// member reports whether an entry of the package's channel names the
// bundle (a dummy skip entry counts).
func (g *graph) member(pkg, channel, bundle string) bool {
	for _, e := range g.byBundle[bundle] {
		if e.pkg == pkg && e.channel == channel {
			return true
		}
	}
	return false
}

// listRows computes ListBundles the way opm's listBundlesQuery did:
//   - the real replaces chain is every entry reachable, along replaces,
//     from the entries at the minimum depth of the whole channel_entry
//     table (normally 0, the channel heads);
//   - per (bundle, package, channel), replaces is the greatest name among
//     the entries replaced by that bundle's chain entries;
//   - skips are the names replaced by its entries that are not on the
//     chain (the synthetic skip edges), in entry order;
//   - only names with an operatorbundle row are listed.
//
// Rows are ordered by (bundle, package, channel), the GROUP BY order of
// the sqlite query.
func (g *graph) listRows() []listRow {
	if len(g.entries) == 0 {
		return nil
	}
	onChain := g.chain()
	type group struct {
		replaces string
		skips    []string
	}
	groups := map[memberKey]*group{}
	for i := range g.entries {
		e := &g.entries[i]
		k := memberKey{e.pkg, e.channel, e.bundle}
		gr := groups[k]
		if gr == nil {
			gr = &group{}
			groups[k] = gr
		}
		if !e.linked {
			continue
		}
		if onChain[e.id] {
			if e.replacesName > gr.replaces {
				gr.replaces = e.replacesName
			}
		} else {
			gr.skips = append(gr.skips, e.replacesName)
		}
	}
	rows := make([]listRow, 0, len(groups))
	for k, gr := range groups {
		if _, ok := g.owner[k.bundle]; !ok {
			continue
		}
		rows = append(rows, listRow{bundle: k.bundle, pkg: k.pkg, channel: k.channel, replaces: gr.replaces, skips: gr.skips})
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.bundle != b.bundle {
			return a.bundle < b.bundle
		}
		if a.pkg != b.pkg {
			return a.pkg < b.pkg
		}
		return a.channel < b.channel
	})
	return rows
}

// chain marks the entries reachable along replaces from the entries at
// the minimum depth of the table.
func (g *graph) chain() map[int64]bool {
	minDepth := g.entries[0].depth
	for i := range g.entries {
		minDepth = min(minDepth, g.entries[i].depth)
	}
	onChain := map[int64]bool{}
	var stack []*entry
	for i := range g.entries {
		if e := &g.entries[i]; e.depth == minDepth {
			onChain[e.id] = true
			stack = append(stack, e)
		}
	}
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !e.linked || onChain[e.replaces] {
			continue
		}
		onChain[e.replaces] = true
		stack = append(stack, g.entry(e.replaces))
	}
	return onChain
}
