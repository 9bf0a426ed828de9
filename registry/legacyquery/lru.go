package legacyquery

import (
	"context"
	"fmt"
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

// manifestCacheBytes bounds the LRU of split bundle columns. Clients walk
// a catalog channel by channel (GetBundle of every member, then
// GetBundleThatReplaces of each, which returns a neighbour), so the same
// few bundles are asked for again and again; the cache saves the sqlite
// read and split of those repeats. The repeats fall within the few
// packages walked at once, so a few packages' manifests are enough; more
// only holds memory that serves no repeat (a parity walk reads each
// bundle once with half of this), and the bound is what a server's memory
// stops at as catalogs grow.
const manifestCacheBytes = 4 << 20

// manifests returns bundle name's split bundle column, from the cache or
// the database. The returned value is shared and must not be modified.
func (q *Querier) manifests(ctx context.Context, name string) (*manifests, error) {
	if m, ok := q.cache.Get(name); ok {
		return m, nil
	}
	g, err := q.graph(ctx)
	if err != nil {
		return nil, err
	}
	_, objects, err := q.db.BundleManifests(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("read manifests of bundle %s: %w", name, err)
	}
	m := &manifests{name: name, null: objects == nil}
	if len(objects) > 0 {
		m.csv, m.objs, m.err = q.splitManifests(g, name, objects)
		for _, o := range objects {
			m.size += int64(len(o))
		}
	}
	q.cache.Add(name, m, m.size)
	return m, nil
}
