package declcfgquery_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/operator-catalog/olmcat/registry/declcfgquery"
	"github.com/operator-catalog/olmcat/registry/internal/catalogtest"
)

// retainedHeap is the live heap after a full GC, in MiB.
func retainedHeap() float64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc) / (1 << 20)
}

func benchLoad(b *testing.B, bundles int, cached bool) {
	dir := b.TempDir()
	if err := catalogtest.Generate(dir, bundles); err != nil {
		b.Fatal(err)
	}
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
		q, err := declcfgquery.Load(context.Background(), dir, opts...)
		if err != nil {
			b.Fatal(err)
		}
		if !q.Stats().CacheWritten {
			b.Fatalf("cache not written: %s", q.Stats().CacheError)
		}
	}
	base := retainedHeap()
	b.ResetTimer()
	var q *declcfgquery.Querier
	for b.Loop() {
		var err error
		if q, err = declcfgquery.Load(context.Background(), dir, opts...); err != nil {
			b.Fatal(err)
		}
		if q.Stats().FromCache != cached {
			b.Fatalf("FromCache = %v, want %v (%s)", q.Stats().FromCache, cached, q.Stats().CacheError)
		}
	}
	b.StopTimer()
	b.ReportMetric(retainedHeap()-base, "retained-MiB")
	b.ReportMetric(float64(q.Stats().Bundles), "channel-bundles")
	b.ReportMetric(float64(size)/(1<<20), "catalog-MiB")
	runtime.KeepAlive(q)
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
