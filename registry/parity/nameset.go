package parity

import (
	"cmp"
	"hash/maphash"
	"slices"
	"sync"
)

// nameSet is a set of names, each kept as a 128-bit hash under two random
// seeds rather than as the string: a check claims every bundle, replaced
// and skipped name of the catalog, and the strings (with a map entry
// each) would be the largest thing the check keeps. Two names share a
// key with a chance of about n²/2¹²⁹, which no catalog approaches, and
// the seeds are chosen per check, so no catalog can be built to collide.
//
// The keys are one sorted slice plus a small map of recent additions,
// merged into the slice when it fills: 16 bytes per name, in one
// allocation.
type nameSet struct {
	mu     sync.Mutex
	seeds  [2]maphash.Seed
	sorted []nameKey
	recent map[nameKey]struct{}
}

type nameKey [2]uint64

func (a nameKey) compare(b nameKey) int {
	if c := cmp.Compare(a[0], b[0]); c != 0 {
		return c
	}
	return cmp.Compare(a[1], b[1])
}

// nameSetRecent is how many additions wait in the map before a merge:
// merges copy the sorted keys, so they are rare; the map stays small.
const nameSetRecent = 4096

func newNameSet() *nameSet {
	return &nameSet{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, recent: map[nameKey]struct{}{}}
}

// add adds name and reports whether it was new.
func (s *nameSet) add(name string) bool {
	k := nameKey{maphash.String(s.seeds[0], name), maphash.String(s.seeds[1], name)}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.recent[k]; ok {
		return false
	}
	if _, ok := slices.BinarySearchFunc(s.sorted, k, nameKey.compare); ok {
		return false
	}
	s.recent[k] = struct{}{}
	if len(s.recent) >= nameSetRecent {
		s.merge()
	}
	return true
}

// merge moves the recent keys into the sorted slice.
func (s *nameSet) merge() {
	merged := make([]nameKey, 0, len(s.sorted)+len(s.recent))
	merged = append(merged, s.sorted...)
	for k := range s.recent {
		merged = append(merged, k)
	}
	slices.SortFunc(merged, nameKey.compare)
	s.sorted = merged
	clear(s.recent)
}

// len is the number of names in the set.
func (s *nameSet) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sorted) + len(s.recent)
}
