package legacyquery

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/legacy"
)

// refGraph is the update graph the plain way, keyed by names and entry
// ids in maps: what the compact graph must agree with.
type refGraph struct {
	entries    []legacy.ChannelEntry // in entry_id order
	byBundle   map[string][]int64
	replacedBy map[string][]int64
	owner      map[string]string
	rows       []listRow
}

func newRefGraph(t *testing.T, db *legacy.DB) *refGraph {
	t.Helper()
	ctx := context.Background()
	r := &refGraph{byBundle: map[string][]int64{}, replacedBy: map[string][]int64{}, owner: map[string]string{}}
	require.NoError(t, db.Entries(ctx, func(e legacy.ChannelEntry) error {
		r.entries = append(r.entries, e)
		return nil
	}))
	slices.SortFunc(r.entries, func(a, b legacy.ChannelEntry) int { return cmp.Compare(a.ID, b.ID) })
	names, err := db.BundleNames(ctx)
	require.NoError(t, err)
	byID := map[int64]legacy.ChannelEntry{}
	for _, e := range r.entries {
		byID[e.ID] = e
	}
	for _, e := range r.entries {
		r.byBundle[e.Bundle] = append(r.byBundle[e.Bundle], e.ID)
		if t, ok := byID[e.Replaces]; ok && e.Replaces != 0 {
			r.replacedBy[t.Bundle] = append(r.replacedBy[t.Bundle], e.ID)
		}
		if slices.Contains(names, e.Bundle) {
			if o, ok := r.owner[e.Bundle]; !ok || e.Package < o {
				r.owner[e.Bundle] = e.Package
			}
		}
	}
	r.rows = r.listRows(byID)
	return r
}

// listRows are the ListBundles rows: replaces from the entries reachable
// from the minimum depth, skips from the others.
func (r *refGraph) listRows(byID map[int64]legacy.ChannelEntry) []listRow {
	onChain := map[int64]bool{}
	var todo []legacy.ChannelEntry
	if len(r.entries) == 0 {
		return nil
	}
	minDepth := slices.MinFunc(r.entries, func(a, b legacy.ChannelEntry) int { return cmp.Compare(a.Depth, b.Depth) }).Depth
	for _, e := range r.entries {
		if e.Depth == minDepth {
			onChain[e.ID] = true
			todo = append(todo, e)
		}
	}
	for len(todo) > 0 {
		e := todo[0]
		todo = todo[1:]
		if t, ok := byID[e.Replaces]; ok && !onChain[t.ID] {
			onChain[t.ID] = true
			todo = append(todo, t)
		}
	}
	rows := map[[3]string]*listRow{}
	for _, e := range r.entries {
		k := [3]string{e.Bundle, e.Package, e.Channel}
		if rows[k] == nil {
			rows[k] = &listRow{bundle: e.Bundle, pkg: e.Package, channel: e.Channel, owner: r.owner[e.Bundle]}
		}
		t, ok := byID[e.Replaces]
		switch {
		case !ok:
		case onChain[e.ID]:
			rows[k].replaces = max(rows[k].replaces, t.Bundle)
		default:
			rows[k].skips = append(rows[k].skips, t.Bundle)
		}
	}
	var out []listRow
	for k, row := range rows {
		if _, ok := r.owner[k[0]]; ok {
			out = append(out, *row)
		}
	}
	slices.SortFunc(out, func(a, b listRow) int {
		return cmp.Or(cmp.Compare(a.bundle, b.bundle), cmp.Compare(a.pkg, b.pkg), cmp.Compare(a.channel, b.channel))
	})
	return out
}

// TestGraphMatchesReference: on every fixture, the compact graph's
// lookups and ListBundles rows equal the map-based reference's, for
// every name and for a name no entry uses.
func TestGraphMatchesReference(t *testing.T) {
	dirs, err := os.ReadDir(fixtures)
	require.NoError(t, err)
	for _, d := range dirs {
		t.Run(d.Name(), func(t *testing.T) {
			_, q := serve(t, filepath.Join(fixtures, d.Name(), "index.db"))
			g, err := q.graph(context.Background())
			require.NoError(t, err)
			ref := newRefGraph(t, q.db)
			require.Len(t, g.entries, len(ref.entries))
			ids := func(idx []int32) []int64 {
				var out []int64
				for _, i := range idx {
					out = append(out, ref.entries[i].ID)
				}
				return out
			}
			for _, name := range append(slices.Clone(g.names), "no-such-name") {
				assert.Equal(t, ref.byBundle[name], ids(g.entriesOf(name)), name)
				assert.Equal(t, ref.replacedBy[name], ids(g.replacersOf(name)), name)
				owner, ok := g.ownerOf(name)
				wantOwner, wantOK := ref.owner[name]
				assert.Equal(t, wantOK, ok, name)
				assert.Equal(t, wantOwner, owner, name)
			}
			for i, e := range ref.entries {
				assert.True(t, g.member(e.Package, e.Channel, e.Bundle))
				assert.Equal(t, e.Depth, int64(g.entries[i].depth))
			}
			var rows []listRow
			require.NoError(t, g.eachRow(func(r *listRow) error {
				rows = append(rows, *r)
				return nil
			}))
			assert.Equal(t, ref.rows, rows)
		})
	}
}

// syntheticEntries is a catalog of pkgs packages of n bundles each, every
// bundle in two channels, each channel a replaces chain: the rows
// readGraph would collect, with the names and the operatorbundle rows.
func syntheticEntries(pkgs, n int) (*rawEntries, []string, []string) {
	var raw rawEntries
	var names, rows []string
	id := func(s string) int32 {
		names = append(names, s)
		return int32(len(names) - 1)
	}
	stable, fast := id("stable"), id("fast")
	var entryID int64
	for p := range pkgs {
		pkg := id(fmt.Sprintf("package-%05d", p))
		first := len(names)
		for b := range n {
			rows = append(rows, fmt.Sprintf("package-%05d.v1.%d.0", p, b))
			id(rows[len(rows)-1])
		}
		for _, ch := range []int32{stable, fast} {
			for b := range n {
				entryID++
				e := rawEntry{id: entryID, pkg: pkg, channel: ch, bundle: int32(first + b), depth: int32(n - 1 - b)}
				if b > 0 {
					e.replaces = entryID - 1
				}
				raw.add(e)
			}
		}
	}
	return &raw, names, rows
}

// TestGraphIsCompact: linking a catalog of 100,000 entries allocates a
// fixed number of slices (nothing per entry or per name) and keeps well
// under 64 bytes per entry besides the name strings, which the graph
// shares with its caller.
func TestGraphIsCompact(t *testing.T) {
	raw, names, rows := syntheticEntries(1000, 50)
	allocs := testing.AllocsPerRun(1, func() { newGraph(raw, names, rows) })
	assert.Less(t, allocs, 50.0, "allocations to link %d entries", raw.n)
	before := heapInUse()
	g := newGraph(raw, names, rows)
	retained := heapInUse() - before
	assert.Less(t, float64(retained)/float64(raw.n), 64.0, "bytes per entry kept by the graph")
	t.Logf("%d entries: %.0f allocations, %.1f bytes per entry", raw.n, allocs, float64(retained)/float64(raw.n))
	require.Len(t, g.entries, raw.n)
	owner, ok := g.ownerOf(rows[len(rows)-1])
	assert.True(t, ok)
	assert.Equal(t, "package-00999", owner)
	assert.Len(t, g.replacersOf(rows[0]), 2, "replaced in both channels")
	runtime.KeepAlive(g)
}
