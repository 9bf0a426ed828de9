package legacy

import (
	"hash/maphash"
	"math"
	"slices"
	"sort"
	"sync"
)

// keyIDs interns the keys of the rowid index (bundle names, or package
// names) as small integers, so that each table's runs are a slice indexed
// by key rather than a map per table. It holds the keys back to back in
// one byte slice and finds them through an open-addressing table of ids,
// about 35 bytes a key, where a map of strings and a slice of the names
// took about 100 (and a string allocation per key for the collector to
// walk): the index is what an indexed DB keeps for the whole catalog
// (BenchmarkOpenKeeps: with the rowid runs below, 114 bytes a bundle
// against 267 with the map, at 10,000 and 40,000 bundles). It
// is safe for concurrent use while the index is built (id) and read-only
// after (lookup, name).
type keyIDs struct {
	mu    sync.Mutex
	seed  maphash.Seed
	text  []byte  // the keys back to back, in id order
	ends  []int   // by id: the end of its key in text
	slots []int32 // id+1 by hash, 0 free; len a power of two, at most two thirds full
}

// reserve makes room for about n keys (their bytes grow as they come).
func (k *keyIDs) reserve(n int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.ends = slices.Grow(k.ends, n)
	k.rehash(n)
}

// id interns the key s and returns its id.
func (k *keyIDs) id(s string) int32 {
	k.mu.Lock()
	defer k.mu.Unlock()
	slot, found := k.find(s)
	if found {
		return k.slots[slot] - 1
	}
	id := int32(len(k.ends))
	k.text = append(k.text, s...)
	k.ends = append(k.ends, len(k.text))
	if 3*len(k.ends) > 2*len(k.slots) {
		k.rehash(len(k.ends))
	} else {
		k.slots[slot] = id + 1
	}
	return id
}

// lookup is the id of an interned key.
func (k *keyIDs) lookup(s string) (int32, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	slot, found := k.find(s)
	if !found {
		return 0, false
	}
	return k.slots[slot] - 1, true
}

// count is the number of keys.
func (k *keyIDs) count() int32 {
	k.mu.Lock()
	defer k.mu.Unlock()
	return int32(len(k.ends))
}

// trim drops the room left for more keys: once the index is built no key
// is added.
func (k *keyIDs) trim() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.text = slices.Clone(k.text)
	k.ends = slices.Clone(k.ends)
}

// name is the key of id, copied out.
func (k *keyIDs) name(id int32) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return string(k.key(id))
}

// key is the key of id in text; k.mu held.
func (k *keyIDs) key(id int32) []byte {
	start := 0
	if id > 0 {
		start = k.ends[id-1]
	}
	return k.text[start:k.ends[id]]
}

// find is the slot holding s, or (found false) the free slot where it
// would go; k.mu held. With no slots yet it returns 0, not found.
func (k *keyIDs) find(s string) (int, bool) {
	if len(k.slots) == 0 {
		return 0, false
	}
	mask := len(k.slots) - 1
	for i := int(maphash.String(k.seed, s)) & mask; ; i = (i + 1) & mask {
		switch v := k.slots[i]; {
		case v == 0:
			return i, false
		case string(k.key(v-1)) == s:
			return i, true
		}
	}
}

// rehash makes the table at least one and a half times as large as n
// keys and puts every key in it; k.mu held. (Linear probing stays short
// at two thirds full: under three probes for a key that is there.)
func (k *keyIDs) rehash(n int) {
	if k.slots == nil {
		k.seed = maphash.MakeSeed()
	}
	size := 16
	for 2*size < 3*n {
		size *= 2
	}
	if size <= len(k.slots) {
		return
	}
	k.slots = make([]int32, size)
	mask := size - 1
	for id := range int32(len(k.ends)) {
		i := int(maphash.Bytes(k.seed, k.key(id))) & mask
		for k.slots[i] != 0 {
			i = (i + 1) & mask
		}
		k.slots[i] = id + 1
	}
}

// rowRun is a range of rowids that, in rowid order, holds only rows of
// one key.
type rowRun struct{ lo, hi int64 }

// run32 is a rowRun stored as offsets from its table's first rowid; hi <
// lo: no rows.
type run32 struct{ lo, hi uint32 }

// empty marks a key without rows.
var empty = run32{1, 0}

// moreRun is a further run of a key whose rows are not contiguous.
type moreRun struct {
	id int32
	run32
}

// rowRuns are the runs of one table's rows by key id, in rowid order: the
// first run of every key inline, the further runs of keys whose rows are
// not contiguous aside (sorted by key once the table is scanned, done).
// Rowids are stored as 32-bit offsets from the first one added, 8 bytes
// a key instead of 16, since the index is kept for the whole catalog; a
// table whose rowids span more than that (never written by opm) is
// marked wide, and a read of any of its keys reads the whole table,
// which the readers filter by name.
type rowRuns struct {
	first []run32 // by key id
	more  []moreRun
	// lastMore is, while the table is scanned, the index in more of the
	// last run of each key that has further runs, -1 for none (by key id).
	lastMore []int32
	base     int64 // the first rowid added
	started  bool
	wide     bool
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
	if !r.started {
		r.base, r.started = lo, true
	}
	for int(id) >= len(r.first) {
		r.first = append(r.first, empty)
		if r.lastMore != nil {
			r.lastMore = append(r.lastMore, -1)
		}
	}
	if !r.wide && (lo < r.base || hi-r.base > math.MaxUint32) {
		r.widen()
	}
	f := &r.first[id]
	if r.wide {
		*f = run32{0, 0}
		return
	}
	run := run32{uint32(lo - r.base), uint32(hi - r.base)}
	last := f
	if r.lastMore != nil && r.lastMore[id] >= 0 {
		last = &r.more[r.lastMore[id]].run32
	}
	switch {
	case f.hi < f.lo:
		*f = run
	case sameAsPrev || int64(run.lo) <= int64(last.hi)+runsGap:
		last.hi = max(last.hi, run.hi)
	default:
		if r.lastMore == nil {
			r.lastMore = slices.Repeat([]int32{-1}, len(r.first))
		}
		r.lastMore[id] = int32(len(r.more))
		r.more = append(r.more, moreRun{id, run})
	}
}

// widen gives up the runs: every key with rows keeps only that it has
// rows (first {0, 0}).
func (r *rowRuns) widen() {
	r.wide = true
	for i, f := range r.first {
		if f.lo <= f.hi {
			r.first[i] = run32{0, 0}
		}
	}
	r.more, r.lastMore = nil, nil
}

// done ends the scan of the table: the further runs are sorted by key
// (each key's in rowid order) for runsOf, and what only the scan needed
// goes.
func (r *rowRuns) done() {
	sort.SliceStable(r.more, func(i, j int) bool { return r.more[i].id < r.more[j].id })
	// A copy of its length: append left up to twice the room.
	r.more = slices.Clone(r.more)
	r.lastMore = nil
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
	if r.wide {
		return []rowRun{{math.MinInt64, math.MaxInt64}}
	}
	out := []rowRun{r.abs(r.first[id])}
	more := r.more
	if r.lastMore == nil { // done: sorted by key
		i := sort.Search(len(more), func(i int) bool { return more[i].id >= id })
		more = more[i:]
	}
	for _, m := range more {
		if m.id == id {
			out = append(out, r.abs(m.run32))
		} else if r.lastMore == nil {
			break
		}
	}
	return out
}

// abs is run as rowids.
func (r *rowRuns) abs(run run32) rowRun {
	return rowRun{r.base + int64(run.lo), r.base + int64(run.hi)}
}

// runsGap is how many foreign rows a merged range may span: reading a few
// rows of other bundles (dropped by name) is cheaper than another query.
const runsGap = 64

// ranges are the rowid ranges holding the rows of the given keys, sorted
// and merged where they lie close together.
func (r *rowRuns) ranges(ids []int32) []rowRun {
	if r.wide {
		// One range for all (merging the whole-table ranges below would
		// overflow).
		if slices.ContainsFunc(ids, r.has) {
			return []rowRun{{math.MinInt64, math.MaxInt64}}
		}
		return nil
	}
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
