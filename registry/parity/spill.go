package parity

import (
	"fmt"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/internal/scratchfile"
	"github.com/operator-catalog/olmcat/registry/api"
)

// spill holds one side's ListBundles answer on disk, in a scratch file
// (no name: a check killed outright leaves nothing behind), with where
// each package's bundles are in memory: the answer is as large as the
// catalog, a package's share is small. index reads a package back, and
// keeps the last few read.
type spill struct {
	f *scratchfile.File
	// Set while the answer streams in, read-only afterwards.
	spans map[string][]spillSpan // by package, its bundles in the order served
	pkgs  []string               // the packages in the order first served
	gvks  map[manifest.GVK]bool

	mu     sync.Mutex // guards recent and err
	recent []*cachedIndex
	err    error // the first read error; the check fails with it
}

// spillSpan locates one marshalled bundle in the spill file.
type spillSpan struct{ off, n int64 }

type cachedIndex struct {
	pkg string
	idx *sideIndex
}

// recentIndexes is how many package indexes a spill keeps: the packages
// being checked and the few that catalog-wide answers point into.
const recentIndexes = 8

func newSpill(dir string) (*spill, error) {
	f, err := scratchfile.New(dir)
	if err != nil {
		return nil, fmt.Errorf("spill ListBundles answer: %w", err)
	}
	return &spill{f: f, spans: map[string][]spillSpan{}, gvks: map[manifest.GVK]bool{}}, nil
}

// add appends one bundle of the answer.
func (s *spill) add(b *api.Bundle) error {
	data, err := proto.Marshal(b)
	if err != nil {
		return fmt.Errorf("spill bundle %s: %w", b.GetCsvName(), err)
	}
	off, err := s.f.Append(data)
	if err != nil {
		return fmt.Errorf("spill bundle %s: %w", b.GetCsvName(), err)
	}
	pkg := b.GetPackageName()
	if _, ok := s.spans[pkg]; !ok {
		s.pkgs = append(s.pkgs, pkg)
	}
	s.spans[pkg] = append(s.spans[pkg], spillSpan{off: off, n: int64(len(data))})
	for _, g := range gvksOf(b) {
		s.gvks[g] = true
	}
	return nil
}

// close drops the file.
func (s *spill) close() error { return s.f.Close() }

// bundles reads pkg's bundles back, in the order they were served.
func (s *spill) bundles(pkg string) ([]*api.Bundle, error) {
	spans := s.spans[pkg]
	out := make([]*api.Bundle, 0, len(spans))
	var buf []byte
	for _, sp := range spans {
		if int64(cap(buf)) < sp.n {
			buf = make([]byte, sp.n)
		}
		buf = buf[:sp.n]
		if err := s.f.ReadAt(buf, sp.off); err != nil {
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
