package legacy

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/operator-catalog/olmcat/internal/testutil/testinput"
)

// benchDB is the large database the benchmarks read: $OLMCAT_BENCH_DB,
// else /tmp/bench/index.db, where scripts/gen-bench-db.sh writes a
// 10,000-bundle index.
func benchDB(b *testing.B) string {
	b.Helper()
	return testinput.Path(b, "OLMCAT_BENCH_DB", "/tmp/bench/index.db", "run scripts/gen-bench-db.sh")
}

func benchReadAll(b *testing.B, opts ...Option) {
	b.Helper()
	path := benchDB(b)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		db, err := Open(ctx, path, opts...)
		require.NoError(b, err)
		names, err := db.PackageNames(ctx)
		require.NoError(b, err)
		// Two readers, as the migrate converter runs on two cores.
		var bundles atomic.Int64
		g, gctx := errgroup.WithContext(ctx)
		next := make(chan string)
		for w := 0; w < 2; w++ {
			g.Go(func() error {
				for n := range next {
					pd, err := db.ReadPackage(gctx, n)
					if err != nil {
						return err
					}
					bundles.Add(int64(len(pd.Bundles)))
				}
				return nil
			})
		}
		for _, n := range names {
			next <- n
		}
		close(next)
		require.NoError(b, g.Wait())
		db.Close()
		b.ReportMetric(float64(bundles.Load()), "bundles")
	}
}

// BenchmarkOpenLazy is a server's start: a lazy Open, then the first
// ReadPackage (which builds the rowid index) and a second one.
func BenchmarkOpenLazy(b *testing.B) {
	path := benchDB(b)
	ctx := context.Background()
	b.ReportAllocs()
	var open, first, second time.Duration
	for b.Loop() {
		start := time.Now()
		db, err := Open(ctx, path, Lazy(), SkipManifests())
		require.NoError(b, err)
		open += time.Since(start)
		names, _ := db.PackageNames(ctx)
		for i, n := range []string{names[len(names)/2], names[len(names)/3]} {
			t := time.Now()
			_, err := db.ReadPackage(ctx, n)
			require.NoError(b, err)
			if i == 0 {
				first += time.Since(t)
			} else {
				second += time.Since(t)
			}
		}
		db.Close()
	}
	b.ReportMetric(open.Seconds()/float64(b.N), "open-s/op")
	b.ReportMetric(first.Seconds()/float64(b.N), "first-read-s/op")
	b.ReportMetric(second.Seconds()/float64(b.N), "next-read-s/op")
}

// BenchmarkOpen is Open alone: the schema, the package and channel rows,
// the rowid index and the catalog-wide checks.
func BenchmarkOpen(b *testing.B) {
	path := benchDB(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		db, err := Open(context.Background(), path)
		require.NoError(b, err)
		db.Close()
	}
}

// BenchmarkReadAllPackages opens the large database and reads every
// package with manifests using two goroutines, as migrate does.
func BenchmarkReadAllPackages(b *testing.B) { benchReadAll(b) }

// BenchmarkReadAllPackagesSkipManifests is the server's path: no manifests.
func BenchmarkReadAllPackagesSkipManifests(b *testing.B) { benchReadAll(b, SkipManifests()) }

// BenchmarkOpenKeeps is what an opened DB keeps for the whole catalog
// (the package and channel rows, the rowid index, the api plurals): the
// live heap after Open, per operatorbundle row. It is what stays in
// memory for every package a conversion streams, so it should stay a
// few dozen bytes a bundle however large the catalog.
func BenchmarkOpenKeeps(b *testing.B) {
	path := benchDB(b)
	ctx := context.Background()
	var kept uint64
	var bundles int
	for b.Loop() {
		before := liveHeap()
		db, err := Open(ctx, path)
		require.NoError(b, err)
		kept = liveHeap() - before
		names, err := db.BundleNames(ctx)
		require.NoError(b, err)
		bundles = len(names)
		runtime.KeepAlive(db)
		db.Close()
	}
	b.ReportMetric(float64(kept)/float64(bundles), "kept-B/bundle")
	b.ReportMetric(float64(kept)/(1<<20), "kept-MiB")
}

// liveHeap is the heap live after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
