package declcfgquery

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/catalogtest"
)

// maxIndexBytesPerBundle bounds what a loaded Querier keeps per bundle of
// a generated catalog (1.5 channel memberships each): the index must not
// grow per-bundle Go slices, string headers or maps back, nor strings
// outside its one string table.
const maxIndexBytesPerBundle = 280

// TestLoadIndexBytesPerBundle measures the heap a loaded Querier keeps
// (live heap after Load minus before, after collections) and bounds it
// per bundle. It runs alone (not parallel), so no other test's heap is
// counted.
func TestLoadIndexBytesPerBundle(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a 2,400-bundle catalog")
	}
	dir := catalogtest.Dir(t, catalogtest.WithBundles(2400), catalogtest.WithBundlesPerPackage(12))
	// A first load fills the pools the loader reuses; two collections
	// empty them (sync.Pool keeps a victim cache for one cycle), so the
	// difference below is the index alone.
	warm, err := Load(context.Background(), dir)
	require.NoError(t, err)
	require.NoError(t, warm.Close())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	q, err := Load(context.Background(), dir)
	require.NoError(t, err)
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	perBundle := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / int64(q.stats.Bundles)
	t.Logf("%d bundles, %d channel entries: %d index bytes per bundle", q.stats.Bundles, q.stats.ChannelEntries, perBundle)
	assert.LessOrEqual(t, perBundle, int64(maxIndexBytesPerBundle), "index bytes kept per bundle")
	runtime.KeepAlive(q)
}
