package declcfgquery

import (
	"fmt"
	"math"
	"slices"
)

// strTable is the index's one string table: every string the index keeps
// (names, versions, images, edges, property types and values) is held
// back to back in one text, and records refer to strings by number. A
// string costs its bytes and a 4-byte end offset, instead of a string
// header, an allocation of its own and a map entry.
//
// While the index is built, strings are appended to buf; freeze copies
// buf into text once, after which str slices text without allocating.
// Number 0 is "".
type strTable struct {
	buf  []byte
	text string
	// end[n] is where string n ends; string n starts where n-1 ends.
	end []uint32
	// dedup numbers the strings added since the last reset, so the
	// strings a package repeats (edges naming its bundles, channel names,
	// property values shared by its bundles) are held once. It only saves
	// memory: reset per package keeps it small, so equal strings of
	// different packages may have different numbers, and records compare
	// strings, never numbers, unless both are of one membership.
	dedup map[string]int32
}

func newStrTable() strTable {
	return strTable{end: []uint32{0}, dedup: map[string]int32{}}
}

// add returns s's number, appending s unless it was added since the last
// reset.
func (t *strTable) add(s string) int32 {
	if s == "" {
		return 0
	}
	if n, ok := t.dedup[s]; ok {
		return n
	}
	n := t.appendRaw(s)
	t.dedup[s] = n
	return n
}

// appendRaw appends s under a new number (a snapshot restores its table
// as written).
func (t *strTable) appendRaw(s string) int32 {
	t.buf = append(t.buf, s...)
	t.end = append(t.end, uint32(min(len(t.buf), math.MaxUint32)))
	return int32(len(t.end) - 1)
}

// reset forgets which strings were added (a new package starts).
func (t *strTable) reset() { clear(t.dedup) }

// freeze ends the build: the text is fixed and str allocates no more.
func (t *strTable) freeze() error {
	if len(t.buf) > math.MaxUint32 || len(t.end) > math.MaxInt32 {
		return fmt.Errorf("the index's strings exceed %d bytes or %d strings", uint32(math.MaxUint32), math.MaxInt32)
	}
	t.text = string(t.buf)
	t.buf, t.dedup = nil, nil
	t.end = slices.Clip(t.end)
	return nil
}

// len is how many strings the table holds.
func (t *strTable) len() int { return len(t.end) }

// str is string n.
func (t *strTable) str(n int32) string {
	start := uint32(0)
	if n > 0 {
		start = t.end[n-1]
	}
	if t.buf != nil { // still being built
		return string(t.buf[start:t.end[n]])
	}
	return t.text[start:t.end[n]]
}
