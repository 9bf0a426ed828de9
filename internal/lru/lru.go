// Package lru is a small least-recently-used cache bounded by the bytes
// its values hold, for servers that read large values (bundle manifests)
// per call and are asked for the same few again and again.
package lru

import (
	"container/list"
	"sync"
)

// Cache maps keys to values, keeping the most recently used ones within
// a byte budget. It is safe for concurrent use.
type Cache[K comparable, V any] struct {
	mu       sync.Mutex
	max      int64
	size     int64
	order    *list.List // of *item[K, V]; front: most recently used
	byKey    map[K]*list.Element
	hits     int64
	requests int64
}

type item[K comparable, V any] struct {
	key  K
	val  V
	size int64
}

// New returns a cache holding at most maxBytes of values (as sized by the
// callers of Add).
func New[K comparable, V any](maxBytes int64) *Cache[K, V] {
	return &Cache[K, V]{max: maxBytes, order: list.New(), byKey: map[K]*list.Element{}}
}

// Get returns the value cached for k and marks it most recently used.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests++
	el, ok := c.byKey[k]
	if !ok {
		var zero V
		return zero, false
	}
	c.hits++
	c.order.MoveToFront(el)
	return el.Value.(*item[K, V]).val, true
}

// Add caches v, which holds size bytes, under k, evicting the least
// recently used values beyond the budget. A value larger than a quarter
// of the budget is not cached (it would evict most of the cache), and a
// key already cached keeps its value.
func (c *Cache[K, V]) Add(k K, v V, size int64) {
	if size > c.max/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[k]; ok {
		return
	}
	c.byKey[k] = c.order.PushFront(&item[K, V]{key: k, val: v, size: size})
	c.size += size
	for c.size > c.max {
		old := c.order.Remove(c.order.Back()).(*item[K, V])
		delete(c.byKey, old.key)
		c.size -= old.size
	}
}

// HitRate is the share of Get calls that found their key, in percent.
func (c *Cache[K, V]) HitRate() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return 100 * float64(c.hits) / float64(max(c.requests, 1))
}
