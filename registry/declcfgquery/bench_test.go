package declcfgquery_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/runtimetune"
	"github.com/operator-catalog/olmcat/internal/testutil/catalogtest"
	"github.com/operator-catalog/olmcat/internal/testutil/testinput"
	"github.com/operator-catalog/olmcat/registry/api"
	"github.com/operator-catalog/olmcat/registry/declcfgquery"
)

// served is the context of a load as the CLI runs it: with a runtime
// tuner, which returns the load's peak to the OS.
var served = runtimetune.NewContext(context.Background(), new(runtimetune.Tuner))

// retainedHeap is the live heap after a full GC, in MiB.
func retainedHeap() float64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc) / (1 << 20)
}

func benchLoad(b *testing.B, bundles int, cached bool) {
	b.Helper()
	dir := catalogtest.Dir(b, catalogtest.WithBundles(bundles), catalogtest.WithBundlesPerPackage(12))
	var size int64
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, _ error) error {
		if info, err := d.Info(); err == nil && !d.IsDir() {
			size += info.Size()
		}
		return nil
	})
	var opts []declcfgquery.Option
	if cached {
		cache := b.TempDir()
		opts = append(opts, declcfgquery.WithCacheDir(cache))
		q, err := declcfgquery.Load(served, dir, opts...)
		require.NoError(b, err)
		require.True(b, q.Stats().CacheWritten, "cache not written: %s", q.Stats().CacheError)
	}
	base := retainedHeap()
	b.ResetTimer()
	var q *declcfgquery.Querier
	for b.Loop() {
		var err error
		q, err = declcfgquery.Load(served, dir, opts...)
		require.NoError(b, err)
		require.Equal(b, cached, q.Stats().FromCache, "FromCache (%s)", q.Stats().CacheError)
	}
	b.StopTimer()
	b.ReportMetric(retainedHeap()-base, "retained-MiB")
	b.ReportMetric(float64(q.Stats().ChannelEntries), "channel-bundles")
	b.ReportMetric(float64(size)/(1<<20), "catalog-MiB")
	runtime.KeepAlive(q)
}

// BenchmarkReleaseLoadPeak is the benchmark of runtimetune.ReleaseLoadPeak:
// the heap a process keeps from the OS, freed but not returned, right after
// a cold load of a generated 10,000-bundle catalog, with the CLI's tuner
// (the peak returned) and without one (left to the background scavenger).
func BenchmarkReleaseLoadPeak(b *testing.B) {
	dir := catalogtest.Dir(b, catalogtest.WithBundles(10000), catalogtest.WithBundlesPerPackage(12))
	for _, bc := range []struct {
		name string
		ctx  context.Context
	}{{"tuner", served}, {"none", context.Background()}} {
		b.Run(bc.name, func(b *testing.B) {
			var kept float64
			for b.Loop() {
				q, err := declcfgquery.Load(bc.ctx, dir)
				require.NoError(b, err)
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				kept += float64(ms.HeapIdle-ms.HeapReleased) / (1 << 20)
				q.Close()
			}
			b.ReportMetric(kept/float64(b.N), "kept-free-MiB")
		})
	}
}

// BenchmarkColdStart764 is the size at which `opm serve` took 8.1 s to
// become healthy: load, validate, model and prepare every answer.
func BenchmarkColdStart764(b *testing.B) { benchLoad(b, 764, false) }

// BenchmarkColdStart10k is a large catalog, built from the files.
func BenchmarkColdStart10k(b *testing.B) { benchLoad(b, 10000, false) }

// BenchmarkWarmStart764 restores the 764-bundle catalog from its cache.
func BenchmarkWarmStart764(b *testing.B) { benchLoad(b, 764, true) }

// BenchmarkWarmStart10k restores the 10,000-bundle catalog from its cache.
func BenchmarkWarmStart10k(b *testing.B) { benchLoad(b, 10000, true) }

// benchCatalogDir is a large migrated catalog for BenchmarkLoadMigrated:
// $OLMCAT_DECLCFG_BENCH_DIR, else /tmp/bench-cat, e.g. from
//
//	olmcat migrate /tmp/bench/index.db /tmp/bench-cat
func benchCatalogDir(b *testing.B) string {
	b.Helper()
	return testinput.Path(b, "OLMCAT_DECLCFG_BENCH_DIR", "/tmp/bench-cat", "migrate the benchmark index there")
}

// BenchmarkLoadMigrated loads a real migration of the 10,000-bundle
// benchmark index (olm.bundle.object manifests, four per bundle) and
// reports the heap the Querier retains next to the catalog's size.
func BenchmarkLoadMigrated(b *testing.B) {
	dir := benchCatalogDir(b)
	var size int64
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, _ error) error {
		if info, err := d.Info(); err == nil && !d.IsDir() {
			size += info.Size()
		}
		return nil
	})
	for _, bc := range []struct {
		name  string
		cache bool
	}{{"FromFiles", false}, {"FromSnapshot", true}} {
		b.Run(bc.name, func(b *testing.B) {
			var opts []declcfgquery.Option
			if bc.cache {
				cache := b.TempDir()
				opts = append(opts, declcfgquery.WithCacheDir(cache))
				q, err := declcfgquery.Load(served, dir, opts...)
				require.NoError(b, err)
				q.Close()
			}
			base := retainedHeap()
			var q *declcfgquery.Querier
			for b.Loop() {
				if q != nil {
					q.Close()
				}
				q = nil
				var err error
				q, err = declcfgquery.Load(served, dir, opts...)
				require.NoError(b, err)
			}
			b.ReportMetric(retainedHeap()-base, "retained-MiB")
			b.ReportMetric(float64(size)/(1<<20), "catalog-MiB")
			runtime.KeepAlive(q)
			q.Close()
		})
	}
}

// loadRPCBench loads a generated 10,000-bundle catalog once and returns
// its ListBundles messages, which the per-RPC benchmarks cycle over.
func loadRPCBench(b *testing.B, opts ...declcfgquery.Option) (*declcfgquery.Querier, []*api.Bundle) {
	b.Helper()
	dir := catalogtest.Dir(b, catalogtest.WithBundles(10000), catalogtest.WithBundlesPerPackage(12))
	q, err := declcfgquery.Load(served, dir, opts...)
	require.NoError(b, err)
	b.Cleanup(func() { q.Close() })
	var all []*api.Bundle
	require.NoError(b, q.ListBundles(context.Background(), func(x *api.Bundle) error { all = append(all, x); return nil }))
	return q, all
}

// BenchmarkRPC10k is the per-call cost of the RPCs a parity run and OLM's
// resolver call per bundle, on a 10,000-bundle catalog.
func BenchmarkRPC10k(b *testing.B) {
	q, all := loadRPCBench(b)
	ctx := context.Background()
	b.Run("GetChannelEntriesThatReplace", func(b *testing.B) {
		i := 0
		for b.Loop() {
			q.GetChannelEntriesThatReplace(ctx, all[i%len(all)].CsvName)
			i++
		}
	})
	b.Run("GetBundleThatReplaces", func(b *testing.B) {
		i := 0
		for b.Loop() {
			x := all[i%len(all)]
			q.GetBundleThatReplaces(ctx, x.CsvName, x.PackageName, x.ChannelName)
			i++
		}
	})
	b.Run("GetBundle", func(b *testing.B) {
		i := 0
		for b.Loop() {
			x := all[i%len(all)]
			_, err := q.GetBundle(ctx, x.PackageName, x.ChannelName, x.CsvName)
			require.NoError(b, err)
			i++
		}
	})
	for _, rpc := range []struct {
		name string
		call func(g *api.GroupVersionKind) error
	}{
		{"GetChannelEntriesThatProvide", func(g *api.GroupVersionKind) error {
			_, err := q.GetChannelEntriesThatProvide(ctx, g.Group, g.Version, g.Kind)
			return err
		}},
		{"GetLatestChannelEntriesThatProvide", func(g *api.GroupVersionKind) error {
			_, err := q.GetLatestChannelEntriesThatProvide(ctx, g.Group, g.Version, g.Kind)
			return err
		}},
		{"GetBundleThatProvides", func(g *api.GroupVersionKind) error {
			_, err := q.GetBundleThatProvides(ctx, g.Group, g.Version, g.Kind)
			return err
		}},
	} {
		b.Run(rpc.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				x := all[i%len(all)]
				i++
				if len(x.ProvidedApis) > 0 {
					rpc.call(x.ProvidedApis[0])
				}
			}
		})
	}
}

// BenchmarkGetBundle10kRestored is GetBundle on a Querier restored from
// its cache snapshot (WithCacheDir), which reads manifests from the
// catalog files as an uncached one does: one blob read and
// decoded per call, in exchange for not holding the manifests.
func BenchmarkGetBundle10kRestored(b *testing.B) {
	q, all := loadRPCBench(b, declcfgquery.WithCacheDir(b.TempDir()))
	ctx := context.Background()
	i := 0
	for b.Loop() {
		x := all[i%len(all)]
		_, err := q.GetBundle(ctx, x.PackageName, x.ChannelName, x.CsvName)
		require.NoError(b, err)
		i++
	}
}
