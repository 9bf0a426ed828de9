package legacy

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKeyIDsInterns: ids are dense in the order keys first come, the same
// key gets the same id through the table's growth, and names come back
// as interned (the empty key and keys that are prefixes of others too).
func TestKeyIDsInterns(t *testing.T) {
	var k keyIDs
	k.reserve(4)
	keys := []string{"", "a", "ab", "a\x00b"}
	for i := range 3000 {
		keys = append(keys, fmt.Sprintf("pkg-%04d.v1.%d.0", i/25, i%25))
	}
	for i, s := range keys {
		require.Equal(t, int32(i), k.id(s), s)
	}
	k.trim()
	assert.Equal(t, int32(len(keys)), k.count())
	for i, s := range keys {
		assert.Equal(t, int32(i), k.id(s), "again: %q", s)
		id, ok := k.lookup(s)
		assert.True(t, ok, s)
		assert.Equal(t, int32(i), id, s)
		assert.Equal(t, s, k.name(id))
	}
	_, ok := k.lookup("a\x00")
	assert.False(t, ok)
	var zero keyIDs
	_, ok = zero.lookup("x")
	assert.False(t, ok, "the zero value has no keys")
	assert.Equal(t, int32(0), zero.id("x"))
}

// TestRowRunsWide: a table whose rowids span more than 32 bits keeps
// which keys have rows, and a read of any of them reads the whole table
// (once, however many keys are asked for).
func TestRowRunsWide(t *testing.T) {
	var r rowRuns
	r.add(0, 5, false)
	r.add(1, 6, false)
	r.add(0, 7, false)
	r.add(2, 5+math.MaxUint32+1, false)
	r.done()
	all := []rowRun{{math.MinInt64, math.MaxInt64}}
	assert.True(t, r.has(0))
	assert.True(t, r.has(2))
	assert.False(t, r.has(3))
	assert.Equal(t, all, r.ranges([]int32{0, 1, 2}))
	assert.Equal(t, all, r.runsOf(1))
	assert.Empty(t, r.ranges([]int32{3}))
}

// TestRowRunsDone: after done each key's further runs still come in
// rowid order, however the keys' runs interleave.
func TestRowRunsDone(t *testing.T) {
	var r rowRuns
	rowid := int64(1 << 40) // offsets from the first rowid fit 32 bits
	for range 3 {
		for id := int32(0); id < 3; id++ {
			r.add(id, rowid, false)
			rowid += 100
		}
	}
	r.done()
	at := func(offsets ...int64) []rowRun {
		var out []rowRun
		for _, o := range offsets {
			out = append(out, rowRun{1<<40 + o, 1<<40 + o})
		}
		return out
	}
	assert.Equal(t, at(100, 400, 700), r.runsOf(1))
	assert.Equal(t, at(0, 200, 300, 500, 600, 800), r.ranges([]int32{0, 2}))
}

// TestPluralKeys: no two group, version and kind triples make one key.
func TestPluralKeys(t *testing.T) {
	var p plurals
	p.set([3]string{"a", "bc", "d"}, "one")
	p.set([3]string{"ab", "c", "d"}, "two")
	p.set([3]string{"a", "b", "cd"}, "three")
	p.set([3]string{"a", "bc", "d"}, "again")
	assert.Equal(t, "again", p.of([3]string{"a", "bc", "d"}), "a later row wins")
	assert.Equal(t, "two", p.of([3]string{"ab", "c", "d"}))
	assert.Equal(t, "three", p.of([3]string{"a", "b", "cd"}))
	assert.Equal(t, "", p.of([3]string{"", "", "abcd"}))
}

// TestCSVSharesItsObject: a csv column found in the bundle column where
// one of its objects starts is those bytes of the bundle column (its own
// copy is not kept), capped so that an append cannot write into the
// bundle column; the bytes are the csv column's either way.
func TestCSVSharesItsObject(t *testing.T) {
	ctx := context.Background()
	shared := 0
	for _, name := range []string{"opm-manifests", "infrawatch-catalog"} {
		db := openFixture(t, name)
		for _, pkg := range db.names {
			pd, err := db.ReadPackage(ctx, pkg)
			require.NoError(t, err)
			for _, b := range pd.Bundles {
				csv, _, err := db.bundleColumns(ctx, b.Name)
				require.NoError(t, err)
				assert.Equal(t, csv, b.CSV, b.Name)
				i := slices.IndexFunc(b.Objects, func(obj []byte) bool {
					return len(obj) > 0 && len(b.CSV) > 0 && unsafe.SliceData(obj) == unsafe.SliceData(b.CSV)
				})
				if i >= 0 {
					assert.Equal(t, len(b.CSV), cap(b.CSV), b.Name)
					shared++
				}
			}
		}
	}
	assert.Positive(t, shared, "the fixtures have csv columns equal to their CSV objects")
}
