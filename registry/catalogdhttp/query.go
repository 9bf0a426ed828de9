package catalogdhttp

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
)

// Filter is a /metas query: each non-empty field must equal the blob's
// top-level key of that name; empty fields filter nothing.
type Filter struct {
	Schema, Package, Name string
}

// IsZero says the filter selects the whole body (/all's).
func (f Filter) IsZero() bool { return f == Filter{} }

// Select returns the ids of the blobs f selects, in body order: the
// intersection of the index lists of its non-empty fields, starting from
// the blobs that have a schema.
func (s *Snapshot) Select(f Filter) []int32 {
	var lists [][]int32
	for _, c := range []struct {
		v     string
		index map[string][]int32
	}{{f.Schema, s.bySchema}, {f.Package, s.byPackage}, {f.Name, s.byName}} {
		if c.v != "" {
			lists = append(lists, c.index[c.v])
		}
	}
	if len(lists) == 0 {
		for _, ids := range s.bySchema {
			lists = append(lists, ids)
		}
		return union(lists)
	}
	out := lists[0]
	for _, l := range lists[1:] {
		out = intersect(out, l)
	}
	return out
}

// intersect merges two ascending id lists into their intersection.
func intersect(a, b []int32) []int32 {
	var out []int32
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}

// union merges disjoint ascending id lists (one per schema) in order.
func union(lists [][]int32) []int32 {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	out := make([]int32, 0, n)
	pos := make([]int, len(lists))
	for len(out) < n {
		best := -1
		for i, l := range lists {
			if pos[i] < len(l) && (best < 0 || l[pos[i]] < lists[best][pos[best]]) {
				best = i
			}
		}
		out = append(out, lists[best][pos[best]])
		pos[best]++
	}
	return out
}

// WriteSelected copies the blobs ids (ascending) from the file to w,
// each run of adjacent blobs in one read.
func (s *Snapshot) WriteSelected(w io.Writer, ids []int32) error {
	buf := make([]byte, 32<<10)
	for i := 0; i < len(ids); {
		j := i + 1
		for j < len(ids) && ids[j] == ids[j-1]+1 {
			j++
		}
		start, end := s.offs[ids[i]], s.offs[ids[j-1]+1]
		if _, err := io.CopyBuffer(w, io.NewSectionReader(s.f, start, end-start), buf); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// filterETag is the strong entity tag of a filtered /metas body: a digest
// of the whole body's digest and the filter, which determine its bytes.
func (s *Snapshot) filterETag(f Filter) string {
	h := sha256.New()
	h.Write(s.sum[:])
	for _, v := range []string{f.Schema, f.Package, f.Name} {
		h.Write([]byte{0})
		h.Write([]byte(v))
	}
	return `"m-` + hex.EncodeToString(h.Sum(nil)) + `"`
}
