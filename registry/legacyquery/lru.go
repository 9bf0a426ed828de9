package legacyquery

import (
	"context"
	"fmt"

	"github.com/operator-catalog/olmcat/legacy"
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
	return q.keepManifests(g, name, objects), nil
}

// keepManifests splits a bundle's objects (freshly read, see
// splitManifests; g may be nil when the update graph is not read yet) and
// caches them.
func (q *Querier) keepManifests(g *graph, name string, objects [][]byte) *manifests {
	m := &manifests{name: name, null: objects == nil}
	if len(objects) > 0 {
		m.csv, m.objs, m.err = q.splitManifests(g, name, objects)
		for _, o := range objects {
			m.size += int64(len(o))
		}
		q.manifestsRead.Add(1)
		q.manifestBytes.Add(m.size)
	}
	q.cache.Add(name, m, m.size)
	return m
}

// seedBudget bounds the manifests a package read brings along (see
// withObjects): a quarter of the manifest cache, so that what a read
// holds at once stays small and what it seeds fits the cache.
const seedBudget = manifestCacheBytes / 4

// withObjects reports whether a read of package name should bring its
// bundles' manifests (legacy ReadPackageWithObjects) to seed the
// manifest cache: only once the update graph is read (a client asking
// only for packages, GetPackage, never needs them), and when the
// package's bundles times the mean size of the manifests read so far
// (64 KiB before any) fit seedBudget, so a large package is read without
// them and its manifests per call, as before.
func (q *Querier) withObjects(name string) bool {
	g := q.graphIfRead()
	if g == nil {
		return false
	}
	id, ok := g.id(name)
	if !ok {
		return false
	}
	mean := int64(64 << 10)
	if n := q.manifestsRead.Load(); n > 0 {
		mean = max(q.manifestBytes.Load()/n, 1)
	}
	return int64(g.owned[id]) <= seedBudget/mean
}

// seed caches the manifests of a bundle read with its package
// (ReadPackageWithObjects), unless its bundle column could not be split:
// BundleManifests then fails the call that asks for them, as before.
// The objects are what BundleManifests would return: the bundle column
// split, nil when NULL or empty.
func (q *Querier) seed(b *legacy.Bundle) {
	for _, u := range b.Unreadable {
		if u.Column == "bundle" {
			return
		}
	}
	q.keepManifests(q.graphIfRead(), b.Name, b.Objects)
}
