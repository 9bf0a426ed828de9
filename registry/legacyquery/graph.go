package legacyquery

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/operator-catalog/olmcat/internal/strarena"
	"github.com/operator-catalog/olmcat/legacy"
)

// graph is the catalog's update graph: every channel entry of every
// package, linked, with the lookups the cross-package RPCs need. It holds
// names and entry links only, never bundle metadata, in a few flat
// slices: every name once, entries and lookups as int32 ids.
type graph struct {
	// names are every package, channel and bundle name an entry uses,
	// sorted and distinct. A name's id is its index, so ids compare as
	// their names do.
	names []string
	// entries are every entry, in entry_id order; an entry's index is
	// its position.
	entries []entry
	// byBundle groups entry indexes by the bundle name id they name,
	// each group in entry order.
	byBundle groups
	// replacedBy groups the indexes of linked entries by the bundle name
	// id of the entry they replace (real and synthetic skip edges), each
	// group in entry order.
	replacedBy groups
	// owner is, by name id, for every bundle with an operatorbundle row
	// named by an entry, the name id of the first package by name whose
	// entries name it (the package whose read of the bundle is served);
	// -1 for every other name.
	owner []int32
	// owned is, by name id, how many bundles a package owns (see owner).
	owned []int32
	// chain marks, by entry index, the entries on the real replaces
	// chain (see markChain).
	chain bitset
	// csvAt memoizes, by bundle name id, which object of the bundle
	// column is the CSV, as position+2 (1: none; 0: not known yet); see
	// Querier.splitManifests. The index is read-only, so a name always
	// yields the same column.
	csvAt []atomic.Int32
}

// entry is a channel_entry row, linked to the entry it replaces. Names
// are ids into graph.names.
type entry struct {
	pkg, channel, bundle int32
	// replaces is the index of the entry this one replaces; -1 when
	// replaces is NULL or names no existing entry (the LEFT JOIN of the
	// sqlite queries yields NULL then).
	replaces int32
	depth    int32
}

// linked reports whether the entry replaces an existing entry.
func (e *entry) linked() bool { return e.replaces >= 0 }

// groups are ids grouped by a key id, compressed: the group of key k is
// items[start[k]:start[k+1]].
type groups struct {
	start []int32
	items []int32
}

// of is the group of key k.
func (gs *groups) of(k int32) []int32 { return gs.items[gs.start[k]:gs.start[k+1]] }

// newGroups groups the indexes 0..n-1 by key(i) (keys in 0..keys-1;
// key -1 leaves i out), keeping index order within each group.
func newGroups(n, keys int, key func(i int) int32) groups {
	gs := groups{start: make([]int32, keys+1)}
	for i := range n {
		if k := key(i); k >= 0 {
			gs.start[k+1]++
		}
	}
	for k := range keys {
		gs.start[k+1] += gs.start[k]
	}
	gs.items = make([]int32, gs.start[keys])
	next := slices.Clone(gs.start[:keys])
	for i := range n {
		if k := key(i); k >= 0 {
			gs.items[next[k]] = int32(i)
			next[k]++
		}
	}
	return gs
}

// bitset is a set of small non-negative ints.
type bitset []uint64

func newBitset(n int) bitset      { return make(bitset, (n+63)/64) }
func (b bitset) has(i int32) bool { return b[i/64]&(1<<(i%64)) != 0 }
func (b bitset) set(i int32)      { b[i/64] |= 1 << (i % 64) }

// graph reads and links the catalog's entries once.
func (q *Querier) graph(ctx context.Context) (*graph, error) {
	q.graphOnce.Do(func() {
		q.graphVal, q.graphErr = readGraph(ctx, q.db)
		if q.graphErr != nil {
			q.graphErr = fmt.Errorf("index %s: %w", q.db.Path(), q.graphErr)
		} else {
			q.graphRead.Store(q.graphVal)
		}
	})
	return q.graphVal, q.graphErr
}

// graphIfRead is the update graph if an RPC read it already, else nil:
// for work that uses the graph when it is there but must not read it
// (GetPackage reads no graph).
func (q *Querier) graphIfRead() *graph { return q.graphRead.Load() }

// rawEntry is a channel_entry row while the graph is built: names as
// provisional ids (in order of first use), replaces as an entry_id.
type rawEntry struct {
	id, replaces         int64
	pkg, channel, bundle int32
	depth                int32
}

// rawChunk is how many rawEntry rows are allocated at once: the rows
// are kept in fixed chunks so that reading them never copies them.
const rawChunk = 1 << 13

// rawEntries are the channel_entry rows in entry_id order, in chunks.
type rawEntries struct {
	chunks [][]rawEntry
	n      int
}

func (r *rawEntries) add(e rawEntry) {
	if r.n%rawChunk == 0 {
		r.chunks = append(r.chunks, make([]rawEntry, 0, rawChunk))
	}
	last := len(r.chunks) - 1
	r.chunks[last] = append(r.chunks[last], e)
	r.n++
}

func (r *rawEntries) at(i int) *rawEntry { return &r.chunks[i/rawChunk][i%rawChunk] }

// index is the position of the row with the entry_id; false when none.
func (r *rawEntries) index(id int64) (int, bool) {
	i := sort.Search(r.n, func(i int) bool { return r.at(i).id >= id })
	return i, i < r.n && r.at(i).id == id
}

// readGraph reads channel_entry and the bundle names and links them.
func readGraph(ctx context.Context, db *legacy.DB) (*graph, error) {
	bundleRows, err := db.BundleNames(ctx)
	if err != nil {
		return nil, err
	}
	ids := make(map[string]int32, len(bundleRows)+len(bundleRows)/8)
	var names []string
	// The names stay for the whole life of the Querier: copied back to
	// back, not one row's allocation each.
	var strs strarena.Arena
	intern := func(s string) int32 {
		if id, ok := ids[s]; ok {
			return id
		}
		id := int32(len(names))
		ids[s] = id
		names = append(names, strs.Clone(s))
		return id
	}
	var raw rawEntries
	last := int64(math.MinInt64)
	err = db.Entries(ctx, func(e legacy.ChannelEntry) error {
		switch {
		case e.ID <= last:
			return fmt.Errorf("channel_entry %d: not in entry_id order", e.ID)
		case e.Depth < math.MinInt32 || e.Depth > math.MaxInt32:
			return fmt.Errorf("channel_entry %d: depth %d out of range", e.ID, e.Depth)
		case raw.n == math.MaxInt32 || len(names) >= math.MaxInt32-3:
			return fmt.Errorf("channel_entry %d: too many rows to serve", e.ID)
		}
		last = e.ID
		raw.add(rawEntry{id: e.ID, replaces: e.Replaces, pkg: intern(e.Package), channel: intern(e.Channel), bundle: intern(e.Bundle), depth: int32(e.Depth)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	clear(ids)
	return newGraph(&raw, names, bundleRows), nil
}

// newGraph links the rows of channel_entry (names as provisional ids
// into names) given the names of the operatorbundle rows.
func newGraph(raw *rawEntries, names, bundleRows []string) *graph {
	g := &graph{names: names}
	remap := g.sortNames()
	g.entries = make([]entry, raw.n)
	for i := range raw.n {
		r := raw.at(i)
		g.entries[i] = entry{pkg: remap[r.pkg], channel: remap[r.channel], bundle: remap[r.bundle], replaces: -1, depth: r.depth}
		if r.replaces == 0 {
			continue
		}
		if t, ok := raw.index(r.replaces); ok {
			g.entries[i].replaces = int32(t)
		}
	}
	g.setOwners(bundleRows)
	g.link()
	g.csvAt = make([]atomic.Int32, len(g.names))
	return g
}

// sortNames sorts names and returns, by provisional id, the final id.
func (g *graph) sortNames() []int32 {
	order := make([]int32, len(g.names))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(g.names[a], g.names[b]) })
	remap := make([]int32, len(order))
	sorted := make([]string, len(order))
	for final, prov := range order {
		remap[prov] = int32(final)
		sorted[final] = g.names[prov]
	}
	g.names = sorted
	return remap
}

// setOwners sets the owner of every bundle with an operatorbundle row
// (rows: their names) that some entry names.
func (g *graph) setOwners(rows []string) {
	hasRow := newBitset(len(g.names))
	for _, n := range rows {
		if id, ok := g.id(n); ok {
			hasRow.set(id)
		}
	}
	g.owner = make([]int32, len(g.names))
	for i := range g.owner {
		g.owner[i] = -1
	}
	for i := range g.entries {
		e := &g.entries[i]
		if hasRow.has(e.bundle) {
			if o := g.owner[e.bundle]; o < 0 || e.pkg < o {
				g.owner[e.bundle] = e.pkg
			}
		}
	}
	g.owned = make([]int32, len(g.names))
	for _, o := range g.owner {
		if o >= 0 {
			g.owned[o]++
		}
	}
}

// link builds the lookup groups and marks the chain once every entry is
// known.
func (g *graph) link() {
	g.byBundle = newGroups(len(g.entries), len(g.names), func(i int) int32 { return g.entries[i].bundle })
	g.replacedBy = newGroups(len(g.entries), len(g.names), func(i int) int32 {
		if r := g.entries[i].replaces; r >= 0 {
			return g.entries[r].bundle
		}
		return -1
	})
	g.markChain()
}

// id is the id of a name; false when no entry uses the name.
func (g *graph) id(name string) (int32, bool) {
	i, ok := slices.BinarySearch(g.names, name)
	return int32(i), ok
}

// entriesOf are the indexes of the entries naming a bundle, in entry
// order.
func (g *graph) entriesOf(bundle string) []int32 {
	if id, ok := g.id(bundle); ok {
		return g.byBundle.of(id)
	}
	return nil
}

// replacersOf are the indexes of the entries replacing an entry named
// bundle, in entry order.
func (g *graph) replacersOf(bundle string) []int32 {
	if id, ok := g.id(bundle); ok {
		return g.replacedBy.of(id)
	}
	return nil
}

// ownerOf is the package whose read of the bundle is served; false when
// the bundle has no operatorbundle row or no entry names it.
func (g *graph) ownerOf(bundle string) (string, bool) {
	id, ok := g.id(bundle)
	if !ok || g.owner[id] < 0 {
		return "", false
	}
	return g.names[g.owner[id]], true
}

// replacesName is the bundle name of the entry e replaces; "" when it
// replaces none.
func (g *graph) replacesName(e *entry) string {
	if !e.linked() {
		return ""
	}
	return g.names[g.entries[e.replaces].bundle]
}

// member reports whether an entry of the package's channel names the
// bundle (a dummy skip entry counts).
func (g *graph) member(pkg, channel, bundle string) bool {
	for _, i := range g.entriesOf(bundle) {
		e := &g.entries[i]
		if g.names[e.pkg] == pkg && g.names[e.channel] == channel {
			return true
		}
	}
	return false
}
