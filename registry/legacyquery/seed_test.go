package legacyquery

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
)

// biggestPackage is the package of q's catalog owning the most bundles,
// with their count; it reads the update graph.
func biggestPackage(t *testing.T, q *Querier) (string, int32) {
	t.Helper()
	g, err := q.graph(context.Background())
	require.NoError(t, err)
	best, n := "", int32(0)
	for _, name := range q.packageNames {
		if id, ok := g.id(name); ok && g.owned[id] > n {
			best, n = name, g.owned[id]
		}
	}
	require.NotEmpty(t, best)
	return best, n
}

// TestPackageReadSeedsManifests: once the update graph is read, the
// package read GetPackage makes brings its bundles' manifests into the
// manifest cache (each row walked once, not once for the package and
// again per bundle), and GetBundle answers what a Querier reading the
// manifests per call answers.
func TestPackageReadSeedsManifests(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(fixtures, "opm-manifests", "index.db")
	_, seeded := serve(t, path)
	name, _ := biggestPackage(t, seeded)
	p, err := seeded.GetPackage(ctx, name)
	require.NoError(t, err)
	pd, ok := seeded.pkgs.Get(name)
	require.True(t, ok)
	require.NotEmpty(t, pd.bundles)
	for b := range pd.bundles {
		_, ok := seeded.cache.Get(b)
		assert.True(t, ok, "manifests of %s read with package %s", b, name)
	}

	// The reference reads the package before the graph: without objects.
	_, perCall := serve(t, path)
	_, err = perCall.GetPackage(ctx, name)
	require.NoError(t, err)
	for b := range pd.bundles {
		_, ok := perCall.cache.Get(b)
		assert.False(t, ok, "%s: no manifests read with a package before the graph", b)
	}
	calls := 0
	for _, ch := range p.Channels {
		g, err := seeded.graph(ctx)
		require.NoError(t, err)
		for b := range pd.bundles {
			if !g.member(name, ch.Name, b) {
				continue
			}
			want, err := perCall.GetBundle(ctx, name, ch.Name, b)
			require.NoError(t, err)
			got, err := seeded.GetBundle(ctx, name, ch.Name, b)
			require.NoError(t, err)
			assert.True(t, proto.Equal(want, got), "GetBundle %s %s %s", name, ch.Name, b)
			calls++
		}
	}
	assert.Positive(t, calls)
}

// TestLargePackageReadsManifestsPerCall: a package whose bundles times the
// mean size of the manifests read so far exceed seedBudget is read
// without its manifests, so a read never holds much more than the budget.
func TestLargePackageReadsManifestsPerCall(t *testing.T) {
	_, q := serve(t, filepath.Join(fixtures, "opm-manifests", "index.db"))
	assert.False(t, q.withObjects(q.packageNames[0]), "no objects before the graph is read")
	name, n := biggestPackage(t, q)
	require.Greater(t, n, int32(1))
	assert.True(t, q.withObjects(name))
	q.manifestsRead.Store(1)
	q.manifestBytes.Store(seedBudget / int64(n-1))
	assert.False(t, q.withObjects(name), "%d bundles of %d bytes", n, seedBudget/int64(n-1))
	q.manifestBytes.Store(seedBudget / int64(n))
	assert.True(t, q.withObjects(name))
}
