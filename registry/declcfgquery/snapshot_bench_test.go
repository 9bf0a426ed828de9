package declcfgquery

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/catalogtest"
)

// BenchmarkRestore10k restores the 10,000-bundle catalog's Querier from
// each cache a server may start from: olmcat's own snapshot of its index
// (restored with its key checked) and opm's JSON cache (restored with its
// digest checked). The snapshot is kept only if it is at least 20%
// faster than opm's format.
func BenchmarkRestore10k(b *testing.B) {
	ctx := context.Background()
	dir := catalogtest.Dir(b, catalogtest.WithBundles(10000), catalogtest.WithBundlesPerPackage(12))
	q, err := loadFromFiles(ctx, dir)
	require.NoError(b, err)
	cache := filepath.Join(b.TempDir(), "cache")
	snap := b.TempDir()
	key, err := catalogKey(dir)
	require.NoError(b, err)
	require.NoError(b, writeOPMCacheOf(ctx, q, dir, cache, key))
	require.NoError(b, writeCache(snap, key, q))
	b.Run("snapshot", func(b *testing.B) {
		for b.Loop() {
			k, err := catalogKey(dir)
			require.NoError(b, err)
			_, err = readCache(snap, k, dir)
			require.NoError(b, err)
		}
	})
	b.Run("opm-json", func(b *testing.B) {
		for b.Loop() {
			_, _, err := restoreOPMCache(dir, cache)
			require.NoError(b, err)
		}
	})
}
