package declcfgquery_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/operator-catalog/olmcat/internal/pathcheck"
	"github.com/operator-catalog/olmcat/registry/api"
	"github.com/operator-catalog/olmcat/registry/declcfgquery"
)

// copyDir copies a catalog so a test may modify it.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	require.NoError(t, os.CopyFS(dst, os.DirFS(src)))
	return dst
}

// requireSameAnswers checks that two queriers hold the same catalog.
func requireSameAnswers(t *testing.T, a, b *declcfgquery.Querier) {
	t.Helper()
	ctx := context.Background()
	la, lb := listBundles(t, a), listBundles(t, b)
	require.Equal(t, len(la), len(lb))
	for i := range la {
		require.True(t, proto.Equal(la[i], lb[i]), "ListBundles[%d]: %v != %v", i, la[i], lb[i])
		ga, err := a.GetBundle(ctx, la[i].PackageName, la[i].ChannelName, la[i].CsvName)
		require.NoError(t, err)
		gb, err := b.GetBundle(ctx, la[i].PackageName, la[i].ChannelName, la[i].CsvName)
		require.NoError(t, err)
		require.True(t, proto.Equal(ga, gb), "GetBundle %s", la[i].CsvName)
	}
	names, err := a.ListPackages(ctx)
	require.NoError(t, err)
	for _, n := range names {
		pa, err := a.GetPackage(ctx, n)
		require.NoError(t, err)
		pb, err := b.GetPackage(ctx, n)
		require.NoError(t, err)
		require.True(t, proto.Equal(pa, pb), "GetPackage %s", n)
	}
}

func TestCacheDir(t *testing.T) {
	catalog := copyDir(t, "../../fixtures/legacy/community-bundles/opm-migrate")
	cache := filepath.Join(t.TempDir(), "cache")
	uncached := load(t, catalog)
	require.False(t, uncached.Stats().FromCache)

	first := load(t, catalog, declcfgquery.WithCacheDir(cache))
	st := first.Stats()
	require.False(t, st.FromCache, "nothing cached yet")
	require.True(t, st.CacheWritten)
	require.Empty(t, st.CacheError)
	requireSameAnswers(t, uncached, first)

	second := load(t, catalog, declcfgquery.WithCacheDir(cache))
	st = second.Stats()
	require.True(t, st.FromCache, "unchanged catalog must start from the cache")
	require.False(t, st.CacheWritten)
	require.Equal(t, first.Stats().Bundles, st.Bundles)
	requireSameAnswers(t, first, second)

	t.Run("changed catalog is rebuilt", func(t *testing.T) {
		// Drop a package: the snapshot no longer describes the files.
		require.NoError(t, os.RemoveAll(filepath.Join(catalog, "wildfly")))
		q := load(t, catalog, declcfgquery.WithCacheDir(cache))
		require.False(t, q.Stats().FromCache)
		require.True(t, q.Stats().CacheWritten)
		_, err := q.GetPackage(context.Background(), "wildfly")
		require.Error(t, err)
		require.True(t, load(t, catalog, declcfgquery.WithCacheDir(cache)).Stats().FromCache)
	})
}

// TestCacheCorruptionIsRebuilt: a damaged olmcat snapshot is never
// trusted. With opm's cache intact the catalog is restored from that; with
// opm's cache stale too, it is rebuilt and both are rewritten.
func TestCacheCorruptionIsRebuilt(t *testing.T) {
	catalog := "../../fixtures/legacy/small-fbb/opm-migrate"
	reference := load(t, catalog)
	for _, tc := range []struct {
		name    string
		corrupt func(data []byte) []byte
	}{
		{"flipped byte", func(d []byte) []byte { d[len(d)/2] ^= 0xff; return d }},
		{"truncated", func(d []byte) []byte { return d[:len(d)*2/3] }},
		{"trailing data", func(d []byte) []byte { return append(d, 'x') }},
		{"empty", func([]byte) []byte { return nil }},
		{"not a snapshot", func([]byte) []byte { return []byte("hello, world\n") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := filepath.Join(t.TempDir(), "cache")
			require.True(t, load(t, catalog, declcfgquery.WithCacheDir(cache)).Stats().CacheWritten)
			files, err := filepath.Glob(filepath.Join(declcfgquery.SnapshotDir(cache), "*"))
			require.NoError(t, err)
			require.Len(t, files, 1, "one snapshot file, no temp files left")
			data, err := os.ReadFile(files[0])
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(files[0], tc.corrupt(data), 0o644))

			q := load(t, catalog, declcfgquery.WithCacheDir(cache))
			st := q.Stats()
			require.True(t, st.FromCache, "opm's cache is intact")
			require.NotEmpty(t, st.CacheError, "the damaged snapshot is reported")
			requireSameAnswers(t, reference, q)

			require.NoError(t, os.WriteFile(filepath.Join(cache, "digest"), []byte("0"), 0o644))
			q = load(t, catalog, declcfgquery.WithCacheDir(cache))
			st = q.Stats()
			require.False(t, st.FromCache, "a damaged snapshot and a stale opm cache must not be trusted")
			require.NotEmpty(t, st.CacheError)
			require.True(t, st.CacheWritten, "both are rewritten")
			requireSameAnswers(t, reference, q)
			q = load(t, catalog, declcfgquery.WithCacheDir(cache))
			require.True(t, q.Stats().FromCache)
			require.Empty(t, q.Stats().CacheError)
		})
	}
}

func TestLoadErrors(t *testing.T) {
	_, err := declcfgquery.Load(context.Background(), "testdata/no-such-dir")
	require.ErrorContains(t, err, "no-such-dir")
	_, err = declcfgquery.Load(context.Background(), "testdata/deprecations/catalog.yaml")
	require.ErrorContains(t, err, "not a directory")

	bad := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bad, "catalog.json"), []byte(`{"schema":"olm.package","name":"x","defaultChannel":"missing"}`), 0o644))
	_, err = declcfgquery.Load(context.Background(), bad)
	require.Error(t, err)
}

// TestCacheDirInsideCatalog: a cache directory (or its snapshot
// sibling) inside the catalog directory is refused: opm's digest of the
// catalog would cover its own cache, and its files would be read as
// catalog files.
func TestCacheDirInsideCatalog(t *testing.T) {
	catalog := copyDir(t, "../../fixtures/legacy/small-fbb/opm-migrate")
	for _, cache := range []string{filepath.Join(catalog, ".cache"), filepath.Join(catalog, "foo", "x")} {
		_, err := declcfgquery.Load(context.Background(), catalog, declcfgquery.WithCacheDir(cache))
		require.ErrorIs(t, err, pathcheck.ErrOverlap)
		_, statErr := os.Stat(cache)
		require.ErrorIs(t, statErr, fs.ErrNotExist, "nothing written")
	}
}

// TestCacheDirUnusable: a cache directory that cannot be created (here a
// regular file is in the way) is reported, and never fails the load.
func TestCacheDirUnusable(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(blocker, []byte("x"), 0o644))
	q := load(t, "../../fixtures/legacy/small-fbb/opm-migrate", declcfgquery.WithCacheDir(filepath.Join(blocker, "cache")))
	st := q.Stats()
	require.False(t, st.FromCache)
	require.False(t, st.CacheWritten)
	require.Contains(t, st.CacheError, "create cache dir")
	require.Equal(t, 3, st.Packages)
}

// TestCacheServesManifestsFromFiles: a Querier built with a cache
// directory (freshly written or restored) reads manifests from the
// catalog files; every answer that carries them must equal the
// uncached Querier's, for image and inline bundles alike.
func TestCacheServesManifestsFromFiles(t *testing.T) {
	dirs, err := filepath.Glob("../../fixtures/legacy/*/opm-migrate")
	require.NoError(t, err)
	dirs = append(dirs, "testdata/deprecations")
	ctx := context.Background()
	for _, dir := range dirs {
		t.Run(filepath.Base(filepath.Dir(dir)), func(t *testing.T) {
			mem := load(t, dir)
			cache := t.TempDir()
			written := load(t, dir, declcfgquery.WithCacheDir(cache))
			require.True(t, written.Stats().CacheWritten)
			restored := load(t, dir, declcfgquery.WithCacheDir(cache))
			require.True(t, restored.Stats().FromCache)
			for _, q := range []*declcfgquery.Querier{written, restored} {
				requireSameAnswers(t, mem, q)
				for _, b := range listBundles(t, mem) {
					want, err := mem.GetBundleForChannel(ctx, b.PackageName, b.ChannelName)
					require.NoError(t, err)
					got, err := q.GetBundleForChannel(ctx, b.PackageName, b.ChannelName)
					require.NoError(t, err)
					require.True(t, proto.Equal(want, got), "GetBundleForChannel %s/%s", b.PackageName, b.ChannelName)
					want, wantErr := mem.GetBundleThatReplaces(ctx, b.CsvName, b.PackageName, b.ChannelName)
					got, err = q.GetBundleThatReplaces(ctx, b.CsvName, b.PackageName, b.ChannelName)
					require.Equal(t, wantErr, err)
					require.True(t, proto.Equal(want, got), "GetBundleThatReplaces %s", b.CsvName)
				}
			}
		})
	}
}

// TestCacheHoldsNoManifests: the snapshot is the index, not the
// catalog: no manifest text is in it, and it restores to the same answers.
func TestCacheHoldsNoManifests(t *testing.T) {
	dir := "../../fixtures/legacy/small-fbb/opm-migrate"
	cache := t.TempDir()
	q := load(t, dir, declcfgquery.WithCacheDir(cache))
	require.True(t, q.Stats().CacheWritten)
	snap, err := os.ReadFile(filepath.Join(declcfgquery.SnapshotDir(cache), "declcfgquery.snapshot"))
	require.NoError(t, err)
	ctx := context.Background()
	csvs := 0
	for _, b := range listBundles(t, q) {
		got, err := q.GetBundle(ctx, b.PackageName, b.ChannelName, b.CsvName)
		require.NoError(t, err)
		if got.CsvJson != "" {
			csvs++
			require.NotContains(t, string(snap), got.CsvJson)
		}
		for _, o := range got.Object {
			require.NotContains(t, string(snap), o)
		}
	}
	require.Positive(t, csvs, "the fixture has bundles with manifests")
}

// TestCacheRestoredCatalogChangedWhileServing: a Querier restored from
// the snapshot reads manifests from the catalog files, so a file
// rewritten after the restore fails the calls that need it (never serves
// other content), and a snapshot damaged after the restore changes
// nothing.
func TestCacheRestoredCatalogChangedWhileServing(t *testing.T) {
	dir := copyDir(t, "../../fixtures/legacy/small-fbb/opm-migrate")
	cache := t.TempDir()
	require.True(t, load(t, dir, declcfgquery.WithCacheDir(cache)).Stats().CacheWritten)
	q := load(t, dir, declcfgquery.WithCacheDir(cache))
	require.True(t, q.Stats().FromCache)
	ctx := context.Background()
	var withCSV *api.Bundle
	for _, b := range listBundles(t, q) {
		got, err := q.GetBundle(ctx, b.PackageName, b.ChannelName, b.CsvName)
		require.NoError(t, err)
		if got.CsvJson != "" {
			withCSV = b
			break
		}
	}
	require.NotNil(t, withCSV, "the fixture has bundles with manifests")
	require.NoError(t, os.Truncate(filepath.Join(declcfgquery.SnapshotDir(cache), "declcfgquery.snapshot"), 0))
	_, err := q.GetBundle(ctx, withCSV.PackageName, withCSV.ChannelName, withCSV.CsvName)
	require.NoError(t, err, "the snapshot is not read after the restore")

	files, err := filepath.Glob(filepath.Join(dir, "*", "*"))
	require.NoError(t, err)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(f, append(data, '\n'), 0o644))
	}
	_, err = q.GetBundle(ctx, withCSV.PackageName, withCSV.ChannelName, withCSV.CsvName)
	require.ErrorContains(t, err, "changed since the catalog was loaded")
	require.False(t, load(t, dir, declcfgquery.WithCacheDir(cache)).Stats().FromCache, "a changed catalog is not restored")
}

// TestCacheSnapshotDeterministic: the same catalog gives the same
// snapshot bytes (olmcat build ships it inside a reproducible image).
func TestCacheSnapshotDeterministic(t *testing.T) {
	dir := "../../fixtures/legacy/community-bundles/opm-migrate"
	var snaps []string
	for range 3 {
		cache := t.TempDir()
		require.True(t, load(t, dir, declcfgquery.WithCacheDir(cache)).Stats().CacheWritten)
		data, err := os.ReadFile(filepath.Join(declcfgquery.SnapshotDir(cache), "declcfgquery.snapshot"))
		require.NoError(t, err)
		snaps = append(snaps, string(data))
	}
	require.Equal(t, snaps[0], snaps[1])
	require.Equal(t, snaps[0], snaps[2])
}
