package legacy

import (
	"sort"
	"sync"
)

// keyIDs interns the keys of the rowid index (bundle and package names)
// as small integers, so that each table's runs are a slice indexed by key
// rather than a map per table. It is safe for concurrent use while the
// index is built (id) and read-only after (lookup, name).
type keyIDs struct {
	mu    sync.Mutex
	ids   map[string]int32
	names []string
}

// id interns the key s and returns its id.
func (k *keyIDs) id(s string) int32 {
	k.mu.Lock()
	defer k.mu.Unlock()
	if id, ok := k.ids[s]; ok {
		return id
	}
	if k.ids == nil {
		k.ids = map[string]int32{}
	}
	id := int32(len(k.names))
	k.ids[s] = id
	k.names = append(k.names, s)
	return id
}

// lookup is the id of an interned key.
func (k *keyIDs) lookup(s string) (int32, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	id, ok := k.ids[s]
	return id, ok
}

// rowRun is a range of rowids that, in rowid order, holds only rows of
// one key.
type rowRun struct{ lo, hi int64 }

// empty marks a key without rows.
var empty = rowRun{1, 0}

// rowRuns are the runs of one table's rows by key id, in rowid order: the
// first run of every key inline, the further runs of keys whose rows are
// not contiguous aside.
type rowRuns struct {
	first []rowRun // by key id; hi < lo: no rows
	more  map[int32][]rowRun
}

// add notes that the row after the previous one (in rowid order) has key
// id; sameAsPrev says the previous row had the same key. A run that
// starts within runsGap rows of the key's last run extends it: readers
// drop the other keys' rows in between by name, and opm writes a
// bundle's rows in a few bursts close together.
func (r *rowRuns) add(id int32, rowid int64, sameAsPrev bool) { r.span(id, rowid, rowid, sameAsPrev) }

// span is add for the rows lo..hi (in rowid order, all of key id; rowids
// without a row may lie between).
func (r *rowRuns) span(id int32, lo, hi int64, sameAsPrev bool) {
	for int(id) >= len(r.first) {
		r.first = append(r.first, empty)
	}
	f := &r.first[id]
	last := f
	if more := r.more[id]; len(more) > 0 {
		last = &more[len(more)-1]
	}
	switch {
	case f.hi < f.lo:
		*f = rowRun{lo, hi}
	case sameAsPrev || lo <= last.hi+runsGap:
		last.hi = max(last.hi, hi)
	default:
		if r.more == nil {
			r.more = map[int32][]rowRun{}
		}
		r.more[id] = append(r.more[id], rowRun{lo, hi})
	}
}

// has reports whether key id has rows.
func (r *rowRuns) has(id int32) bool {
	return int(id) < len(r.first) && r.first[id].lo <= r.first[id].hi
}

// runsOf lists the runs of key id.
func (r *rowRuns) runsOf(id int32) []rowRun {
	if !r.has(id) {
		return nil
	}
	return append([]rowRun{r.first[id]}, r.more[id]...)
}

// runsGap is how many foreign rows a merged range may span: reading a few
// rows of other bundles (dropped by name) is cheaper than another query.
const runsGap = 64

// ranges are the rowid ranges holding the rows of the given keys, sorted
// and merged where they lie close together.
func (r *rowRuns) ranges(ids []int32) []rowRun {
	var all []rowRun
	for _, id := range ids {
		all = append(all, r.runsOf(id)...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].lo < all[j].lo })
	var out []rowRun
	for _, run := range all {
		if n := len(out); n > 0 && run.lo <= out[n-1].hi+runsGap {
			out[n-1].hi = max(out[n-1].hi, run.hi)
			continue
		}
		out = append(out, run)
	}
	return out
}
