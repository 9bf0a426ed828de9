package parity

import (
	"hash/maphash"
	"slices"
	"strings"
	"sync"
)

// canonCache remembers the digest of the canonical JSON of manifests.
// The same bundle's csvJson and objects come back from GetBundle in each
// channel, GetBundleThatReplaces...: parsing each once keeps the check
// linear in the catalog. A cache serves one package's calls (or the
// catalog-wide ones) and is dropped with them, so it does not grow with
// the catalog. Keys and values are 64-bit
// hashes with one per-check seed (a false match needs a collision of both).
type canonCache struct {
	once sync.Once
	seed maphash.Seed
	m    sync.Map // rawKey -> uint64 digest of canon(raw)
	vals sync.Map // raw property value -> canon(raw)
}

// maxCachedValue bounds the property values value remembers: small JSON
// documents repeat across calls; large ones are rare and parsed each time.
const maxCachedValue = 4096

// value returns canon(s), remembered for small property and dependency
// values (each bundle's come back from several RPCs).
func (c *canonCache) value(s string) string {
	if len(s) > maxCachedValue {
		return canon(s)
	}
	if v, ok := c.vals.Load(s); ok {
		return v.(string)
	}
	v := canon(s)
	c.vals.Store(s, v)
	return v
}

type rawKey struct {
	h uint64
	n int
}

// digest returns a hash of canon(s): equal digests mean equal JSON.
func (c *canonCache) digest(s string) uint64 {
	c.once.Do(func() { c.seed = maphash.MakeSeed() })
	k := rawKey{maphash.String(c.seed, s), len(s)}
	if v, ok := c.m.Load(k); ok {
		return v.(uint64)
	}
	d := maphash.String(c.seed, canon(s))
	c.m.Store(k, d)
	return d
}

// same reports whether l and r are the same JSON document: equal text
// is, whatever its encoding, without parsing either; so is text equal but
// for the space around it (canon trims it), which is how the two servers'
// manifests differ most often (one ends in a newline).
func (c *canonCache) same(l, r string) bool {
	return l == r || strings.TrimSpace(l) == strings.TrimSpace(r) || c.digest(l) == c.digest(r)
}

// sameList reports whether two lists hold the same JSON documents (as a
// multiset).
func (c *canonCache) sameList(l, r []string) bool {
	if len(l) != len(r) {
		return false
	}
	if slices.EqualFunc(l, r, func(l, r string) bool { return strings.TrimSpace(l) == strings.TrimSpace(r) }) {
		return true // as same: equal text but for the space around it, in the same order
	}
	ld, rd := make([]uint64, len(l)), make([]uint64, len(r))
	for i := range l {
		ld[i], rd[i] = c.digest(l[i]), c.digest(r[i])
	}
	slices.Sort(ld)
	slices.Sort(rd)
	return slices.Equal(ld, rd)
}
