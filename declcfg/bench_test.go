package declcfg

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/catalogtest"
)

// genCatalog loads the synthetic catalog of internal/testutil/catalogtest: pkgs
// packages of perPkg bundles each in two channels (stable: every bundle,
// one replaces chain with a skip per bundle; fast: the newest half), with
// the properties opm migrate writes and one small inline manifest, the
// CSV.
func genCatalog(tb testing.TB, pkgs, perPkg int) *DeclarativeConfig {
	tb.Helper()
	return loadGenerated(tb, catalogtest.WithPackages(pkgs), catalogtest.WithBundlesPerPackage(perPkg),
		catalogtest.WithSkips(), catalogtest.WithManifestBytes(0), catalogtest.WithCSVOnly())
}

// loadGenerated loads the synthetic catalog opts describe.
func loadGenerated(tb testing.TB, opts ...catalogtest.Option) *DeclarativeConfig {
	tb.Helper()
	cfg, err := LoadDir(context.Background(), catalogtest.Dir(tb, opts...))
	require.NoError(tb, err)
	return cfg
}

func dirSize(tb testing.TB, dir string) int64 {
	tb.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	require.NoError(tb, err)
	return n
}

// BenchmarkLoadValidate10k loads and validates a 10,000-bundle catalog
// (400 packages x 25 bundles, opm layout) per iteration.
func BenchmarkLoadValidate10k(b *testing.B) {
	dir := benchLoadValidate(b, genCatalog(b, 400, 25))
	b.ReportMetric(float64(retainedHeap(b, dir))/1e6, "live-MB")
}

// benchLoadValidate writes cfg (10,000 bundles in 400 packages) once in the
// opm layout, then loads and links it per iteration. It returns the
// catalog directory.
func benchLoadValidate(b *testing.B, cfg *DeclarativeConfig) string {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "catalog")
	require.NoError(b, WriteDir(cfg, dir))
	size := dirSize(b, dir)
	ctx := context.Background()
	b.ReportAllocs()
	start := cpuTime(b)
	for b.Loop() {
		cfg, err := LoadDir(ctx, dir)
		require.NoError(b, err)
		_, n, err := toModel(cfg)
		require.NoError(b, err)
		require.Len(b, cfg.Bundles, 10000)
		require.Equal(b, 400, n)
	}
	reportCPU(b, start)
	b.ReportMetric(float64(size)/1e6, "catalog-MB")
	return dir
}

// retainedHeap measures the heap that a loaded and linked catalog keeps
// alive (config plus model), after garbage collection.
func retainedHeap(tb testing.TB, dir string) uint64 {
	tb.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	cfg, err := LoadDir(context.Background(), dir)
	require.NoError(tb, err)
	m, _, err := toModel(cfg)
	require.NoError(tb, err)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(cfg)
	runtime.KeepAlive(m)
	if after.HeapAlloc < before.HeapAlloc {
		return 0
	}
	return after.HeapAlloc - before.HeapAlloc
}

// TestGeneratedCatalogsRoundTrip keeps the benchmarks' generated
// catalogs honest: they must be valid and load back with their objects in
// both layouts.
func TestGeneratedCatalogsRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cfg     *DeclarativeConfig
		objects int
	}{
		{"small", genCatalog(t, 3, 6), 1},
		{"realistic", genRealisticCatalog(t, 2, 3), 4},
	} {
		for _, l := range []Layout{LayoutOPM, LayoutObjects} {
			dir := filepath.Join(t.TempDir(), "catalog")
			require.NoError(t, WriteDir(tc.cfg, dir, WithLayout(l)))
			loaded, err := LoadDir(context.Background(), dir)
			require.NoError(t, err)
			_, _, err = toModel(loaded)
			require.NoError(t, err, "%s, %s", tc.name, l)
			require.Len(t, loaded.Bundles, len(tc.cfg.Bundles), "%s, %s: bundles loaded", tc.name, l)
			for _, bd := range loaded.Bundles {
				require.Len(t, bd.Objects, tc.objects, "%s, %s: bundle %s objects", tc.name, l, bd.Name)
				require.NotEmpty(t, bd.CsvJSON, "%s, %s: bundle %s has a CSV", tc.name, l, bd.Name)
			}
		}
	}
}
