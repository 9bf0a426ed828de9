package parity

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/internal/strarena"
	"github.com/operator-catalog/olmcat/registry/api"
)

// span locates one marshalled bundle in a spill file, in one word: the
// offset in the high 40 bits, the length in the low 24, or spanLong
// there for a bundle that long or longer (its length is in spill.long).
type span uint64

const (
	spanLenBits = 24
	spanLong    = 1<<spanLenBits - 1
	maxSpillOff = 1<<(64-spanLenBits) - 1
)

func (sp span) off() int64 { return int64(sp >> spanLenBits) }

// spill holds one side's ListBundles answer on disk, in a temporary file
// removed when the check ends, with where each package's bundles are in
// memory: the answer is as large as the catalog, a package's share is
// small. index reads a package back, and keeps the last few read.
type spill struct {
	f    *os.File
	w    *bufio.Writer
	size int64
	// Set while the answer streams in, read-only afterwards.
	pkgIDs map[string]int32
	pkgs   []string
	// spans are the bundles in the order served until done, then grouped
	// by package (in served order within each): package i's are
	// spans[start[i]:start[i+1]]. Flat slices, not one per package, so
	// that what is kept per bundle is one word in one allocation.
	spans []span
	start []int32
	long  map[int64]int // by offset, the length of each bundle of spanLong bytes or more
	pkgOf []int32       // by span, the package's index, until done
	gvks  map[manifest.GVK]bool
	strs  strarena.Arena // the strings pkgIDs, pkgs and gvks keep

	mu     sync.Mutex // guards recent and err
	recent []*cachedIndex
	err    error // the first read error; the check fails with it
}

type cachedIndex struct {
	pkg string
	idx *sideIndex
}

// recentIndexes is how many package indexes a spill keeps: the packages
// being checked and the few that catalog-wide answers point into.
const recentIndexes = 8

func newSpill(dir string) (*spill, error) {
	f, err := os.CreateTemp(dir, "olmcat-parity-*.bundles")
	if err != nil {
		return nil, fmt.Errorf("spill ListBundles answer: %w", err)
	}
	return &spill{f: f, w: bufio.NewWriterSize(f, 1<<16), pkgIDs: map[string]int32{}, long: map[int64]int{}, gvks: map[manifest.GVK]bool{}}, nil
}

// add appends one bundle of the answer.
func (s *spill) add(b *api.Bundle) error {
	data, err := proto.Marshal(b)
	if err != nil {
		return fmt.Errorf("spill bundle %s: %w", b.GetCsvName(), err)
	}
	if _, err := s.w.Write(data); err != nil {
		return fmt.Errorf("spill bundle %s: %w", b.GetCsvName(), err)
	}
	if s.size > maxSpillOff {
		return fmt.Errorf("spill bundle %s: the answer exceeds %d bytes", b.GetCsvName(), int64(maxSpillOff))
	}
	pkg := b.GetPackageName()
	id, ok := s.pkgIDs[pkg]
	if !ok {
		id = int32(len(s.pkgs))
		pkg = s.strs.Clone(pkg)
		s.pkgIDs[pkg] = id
		s.pkgs = append(s.pkgs, pkg)
	}
	n := min(len(data), spanLong)
	if n == spanLong {
		s.long[s.size] = len(data)
	}
	s.spans = append(s.spans, span(s.size)<<spanLenBits|span(n))
	s.pkgOf = append(s.pkgOf, id)
	s.size += int64(len(data))
	for _, g := range gvksOf(b) {
		if !s.gvks[g] {
			s.gvks[cloneGVK(&s.strs, g)] = true
		}
	}
	return nil
}

// done ends the writing and groups the spans by package.
func (s *spill) done() error {
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("spill ListBundles answer: %w", err)
	}
	s.start = make([]int32, len(s.pkgs)+1)
	for _, p := range s.pkgOf {
		s.start[p+1]++
	}
	for i := range s.pkgs {
		s.start[i+1] += s.start[i]
	}
	grouped := make([]span, len(s.spans))
	next := slices.Clone(s.start[:len(s.pkgs)])
	for i, sp := range s.spans {
		grouped[next[s.pkgOf[i]]] = sp
		next[s.pkgOf[i]]++
	}
	s.spans, s.pkgOf = grouped, nil
	return nil
}

// of returns the spans of pkg's bundles, in the order served.
func (s *spill) of(pkg string) []span {
	id, ok := s.pkgIDs[pkg]
	if !ok || s.start == nil {
		return nil
	}
	return s.spans[s.start[id]:s.start[id+1]]
}

// close removes the file.
func (s *spill) close() error {
	name := s.f.Name()
	return errors.Join(s.f.Close(), os.Remove(name))
}

// bundles reads pkg's bundles back, in the order they were served.
func (s *spill) bundles(pkg string) ([]*api.Bundle, error) {
	spans := s.of(pkg)
	out := make([]*api.Bundle, 0, len(spans))
	var buf []byte
	for _, sp := range spans {
		n := int(sp & spanLong)
		if n == spanLong {
			n = s.long[sp.off()]
		}
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := s.f.ReadAt(buf, sp.off()); err != nil {
			return nil, fmt.Errorf("read back ListBundles answer of %s: %w", pkg, err)
		}
		b := &api.Bundle{}
		if err := proto.Unmarshal(buf, b); err != nil {
			return nil, fmt.Errorf("read back ListBundles answer of %s: %w", pkg, err)
		}
		out = append(out, b)
	}
	return out, nil
}

// index returns the index of pkg's bundles. A read error yields an empty
// index and is kept for failed.
func (s *spill) index(pkg string) *sideIndex {
	s.mu.Lock()
	for i, c := range s.recent {
		if c.pkg == pkg {
			// Move to the front: the least recently used goes first.
			copy(s.recent[1:i+1], s.recent[:i])
			s.recent[0] = c
			s.mu.Unlock()
			return c.idx
		}
	}
	s.mu.Unlock()
	idx := newSideIndex()
	bundles, err := s.bundles(pkg)
	for _, b := range bundles {
		idx.addBundle(b)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil && s.err == nil {
		s.err = err
	}
	s.recent = append([]*cachedIndex{{pkg, idx}}, s.recent...)
	if len(s.recent) > recentIndexes {
		s.recent[recentIndexes] = nil
		s.recent = s.recent[:recentIndexes]
	}
	return idx
}

// failed returns the first read error, if any.
func (s *spill) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}
