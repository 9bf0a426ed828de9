package source_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/registry/source"
)

func TestOpen(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		path string
		kind input.Kind
	}{
		{"declarative config dir", "../../fixtures/legacy/small-fbb/opm-migrate", input.KindDeclcfg},
		{"sqlite index", "../../fixtures/legacy/small-fbb/index.db", input.KindSQLite},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, kind, err := source.Open(ctx, tc.path)
			require.NoError(t, err)
			defer func() { require.NoError(t, q.Close()) }()
			require.Equal(t, tc.kind, kind)
			names, err := q.ListPackages(ctx)
			require.NoError(t, err)
			require.ElementsMatch(t, []string{"bar", "baz", "foo"}, names)
			p, err := q.GetPackage(ctx, "foo")
			require.NoError(t, err)
			require.Equal(t, "beta", p.DefaultChannelName)
		})
	}
}

func TestOpenCacheDir(t *testing.T) {
	ctx := context.Background()
	cache := filepath.Join(t.TempDir(), "cache")
	for range 2 {
		q, _, err := source.Open(ctx, "../../fixtures/legacy/small-fbb/opm-migrate", source.WithCacheDir(cache))
		require.NoError(t, err)
		require.NoError(t, q.Close())
	}
	for dir, want := range map[string][]string{cache: {"cache", "digest"}, cache + ".olmcat": {"declcfgquery.snapshot"}} {
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		require.Equal(t, want, names, "the directory catalog left opm's cache and olmcat's snapshot beside it")
	}

	// A sqlite catalog ignores the cache directory.
	sqliteCache := t.TempDir()
	q, kind, err := source.Open(ctx, "../../fixtures/legacy/small-fbb/index.db", source.WithCacheDir(sqliteCache))
	require.NoError(t, err)
	require.Equal(t, input.KindSQLite, kind)
	require.NoError(t, q.Close())
	entries, err := os.ReadDir(sqliteCache)
	require.NoError(t, err)
	require.Empty(t, entries)
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	notDB := filepath.Join(dir, "index.db")
	require.NoError(t, os.WriteFile(notDB, []byte("not a database"), 0o644))
	for _, tc := range []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "missing"), "missing"},
		{"neither dir nor sqlite", notDB, "neither a declarative config directory nor a sqlite index database"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := source.Open(ctx, tc.path)
			require.ErrorContains(t, err, tc.want)
		})
	}
}
