package declcfgquery_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/registry/declcfgquery"
)

// TestOPMCacheRestores: opm's cache alone (the snapshot removed) restores
// every fixture to the answers of the catalog files, and its digest is
// checked: a changed catalog fails an enforced load and is rebuilt
// otherwise.
func TestOPMCacheRestores(t *testing.T) {
	dirs, err := filepath.Glob("../../fixtures/legacy/*/opm-migrate")
	require.NoError(t, err)
	dirs = append(dirs, "testdata/deprecations")
	ctx := context.Background()
	for _, dir := range dirs {
		t.Run(filepath.Base(filepath.Dir(dir)), func(t *testing.T) {
			catalog := copyDir(t, dir)
			mem := load(t, catalog)
			cache := filepath.Join(t.TempDir(), "cache")
			require.True(t, load(t, catalog, declcfgquery.WithCacheDir(cache)).Stats().CacheWritten)
			for _, name := range []string{"digest", "cache/packages.json"} {
				_, err := os.Stat(filepath.Join(cache, name))
				require.NoError(t, err, "opm's JSON cache holds %s", name)
			}
			require.NoError(t, os.RemoveAll(declcfgquery.SnapshotDir(cache)))
			q := load(t, catalog, declcfgquery.WithCacheDir(cache), declcfgquery.WithCacheIntegrity())
			require.True(t, q.Stats().FromCache)
			requireSameAnswers(t, mem, q)

			// Any byte of the catalog counts (opm digests every file).
			require.NoError(t, os.WriteFile(filepath.Join(catalog, "README"), []byte("x"), 0o644))
			_, err := declcfgquery.Load(ctx, catalog, declcfgquery.WithCacheDir(cache), declcfgquery.WithCacheIntegrity())
			require.ErrorIs(t, err, declcfgquery.ErrCacheIntegrity)
			require.ErrorContains(t, err, "the cache reports digest")
			q = load(t, catalog, declcfgquery.WithCacheDir(cache))
			require.False(t, q.Stats().FromCache)
			require.True(t, q.Stats().CacheWritten)
			require.True(t, load(t, catalog, declcfgquery.WithCacheDir(cache), declcfgquery.WithCacheIntegrity()).Stats().FromCache)
		})
	}
}

// TestOPMCacheDirContents: a cache directory with anything but a cache in
// it is refused (opm refuses it: "unexpected contents") and left as it
// is; an older olmcat's snapshot there is replaced; an empty or missing
// one fails an enforced load with fs.ErrNotExist.
func TestOPMCacheDirContents(t *testing.T) {
	ctx := context.Background()
	catalog := "../../fixtures/legacy/small-fbb/opm-migrate"
	cache := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(cache, "notes.txt"), []byte("mine"), 0o644))
	_, err := declcfgquery.Load(ctx, catalog, declcfgquery.WithCacheDir(cache))
	require.ErrorContains(t, err, "cache directory has unexpected contents: notes.txt")
	entries, err := os.ReadDir(cache)
	require.NoError(t, err)
	require.Len(t, entries, 1, "nothing written beside it")

	_, err = declcfgquery.Load(ctx, catalog, declcfgquery.WithCacheDir(filepath.Join(t.TempDir(), "none")), declcfgquery.WithCacheIntegrity())
	require.ErrorIs(t, err, declcfgquery.ErrCacheIntegrity)
	require.ErrorIs(t, err, fs.ErrNotExist)

	old := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(old, "declcfgquery.snapshot"), []byte("an older olmcat's"), 0o644))
	require.True(t, load(t, catalog, declcfgquery.WithCacheDir(old)).Stats().CacheWritten)
	entries, err = os.ReadDir(old)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	require.Equal(t, []string{"cache", "digest"}, names, "only opm's cache is left where opm looks")

	// A write killed before its digest (written last) leaves cache/ alone:
	// never served, rebuilt unless enforced.
	require.NoError(t, os.Remove(filepath.Join(old, "digest")))
	require.NoError(t, os.RemoveAll(declcfgquery.SnapshotDir(old)))
	_, err = declcfgquery.Load(ctx, catalog, declcfgquery.WithCacheDir(old), declcfgquery.WithCacheIntegrity())
	require.ErrorIs(t, err, declcfgquery.ErrCacheIntegrity)
	require.ErrorContains(t, err, "incomplete opm cache")
	require.True(t, load(t, catalog, declcfgquery.WithCacheDir(old)).Stats().CacheWritten)
}
