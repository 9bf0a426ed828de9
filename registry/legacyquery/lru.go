package legacyquery

import (
	"container/list"
	"context"
	"fmt"
	"sync"
)

// manifests is one bundle column, read and split for the api: what every
// GetBundle-family answer and ListBundles row of the bundle shares.
type manifests struct {
	name string
	// null is true when the bundle column is NULL or empty.
	null bool
	csv  string
	objs []string
	// err is why the objects could not be served (no CSV among them).
	err  error
	size int64
}

// manifestCache is a small LRU of split bundle columns, bounded by bytes.
// Clients walk a catalog channel by channel (GetBundle of every member,
// then GetBundleThatReplaces of each, which returns a neighbour), so the
// same few bundles are asked for again and again; the cache saves the
// sqlite read and split of those repeats while holding only a few MiB.
type manifestCache struct {
	mu       sync.Mutex
	max      int64
	size     int64
	order    *list.List // front: most recently used
	byName   map[string]*list.Element
	hits     int64
	requests int64
}

// manifestCacheBytes bounds the cache: a few hundred typical bundles,
// while one huge bundle cannot pin much memory.
const manifestCacheBytes = 16 << 20

func newManifestCache(max int64) *manifestCache {
	return &manifestCache{max: max, order: list.New(), byName: map[string]*list.Element{}}
}

func (c *manifestCache) get(name string) (*manifests, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests++
	el, ok := c.byName[name]
	if !ok {
		return nil, false
	}
	c.hits++
	c.order.MoveToFront(el)
	return el.Value.(*manifests), true
}

func (c *manifestCache) add(m *manifests) {
	if m.size > c.max/4 {
		return // would evict most of the cache for one bundle
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byName[m.name]; ok {
		return // another call read it meanwhile
	}
	c.byName[m.name] = c.order.PushFront(m)
	c.size += m.size
	for c.size > c.max {
		el := c.order.Back()
		old := c.order.Remove(el).(*manifests)
		delete(c.byName, old.name)
		c.size -= old.size
	}
}

// manifests returns bundle name's split bundle column, from the cache or
// the database. The returned value is shared and must not be modified.
func (q *Querier) manifests(ctx context.Context, name string) (*manifests, error) {
	if m, ok := q.cache.get(name); ok {
		return m, nil
	}
	_, objects, err := q.db.BundleManifests(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("read manifests of bundle %s: %w", name, err)
	}
	m := &manifests{name: name, null: objects == nil}
	if len(objects) > 0 {
		m.csv, m.objs, m.err = q.splitManifests(name, objects)
		for _, o := range objects {
			m.size += int64(len(o))
		}
	}
	q.cache.add(m)
	return m, nil
}
