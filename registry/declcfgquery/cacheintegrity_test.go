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

// TestCacheIntegrity: with WithCacheIntegrity a missing or stale snapshot
// fails Load (nothing rebuilt, nothing written) and a matching one is
// served.
func TestCacheIntegrity(t *testing.T) {
	ctx := context.Background()
	catalog := copyDir(t, "../../fixtures/legacy/small-fbb/opm-migrate")
	cache := filepath.Join(t.TempDir(), "cache")

	_, err := declcfgquery.Load(ctx, catalog, declcfgquery.WithCacheDir(cache), declcfgquery.WithCacheIntegrity())
	require.ErrorIs(t, err, declcfgquery.ErrCacheIntegrity)
	require.ErrorIs(t, err, fs.ErrNotExist)
	_, statErr := os.Stat(cache)
	require.ErrorIs(t, statErr, fs.ErrNotExist, "an enforced load writes nothing")

	load(t, catalog, declcfgquery.WithCacheDir(cache)).Close()
	q := load(t, catalog, declcfgquery.WithCacheDir(cache), declcfgquery.WithCacheIntegrity())
	require.True(t, q.Stats().FromCache)
	q.Close()

	require.NoError(t, os.WriteFile(filepath.Join(catalog, "foo", "extra.json"), []byte(`{"schema":"x.custom","package":"foo"}`), 0o644))
	_, err = declcfgquery.Load(ctx, catalog, declcfgquery.WithCacheDir(cache), declcfgquery.WithCacheIntegrity())
	require.ErrorIs(t, err, declcfgquery.ErrCacheIntegrity)
	require.NotErrorIs(t, err, fs.ErrNotExist)
}
