package legacy

import (
	"context"
	"sync/atomic"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/operator-catalog/olmcat/internal/testinput"
)

// benchDB is the large database the benchmarks read: $OLMCAT_BENCH_DB,
// else /tmp/bench/index.db, where scripts/gen-bench-db.sh writes a
// 10,000-bundle index.
func benchDB(b *testing.B) string {
	return testinput.Path(b, "OLMCAT_BENCH_DB", "/tmp/bench/index.db", "run scripts/gen-bench-db.sh")
}

func benchReadAll(b *testing.B, opts ...Option) {
	path := benchDB(b)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		db, err := Open(ctx, path, opts...)
		if err != nil {
			b.Fatal(err)
		}
		names, err := db.PackageNames(ctx)
		if err != nil {
			b.Fatal(err)
		}
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
		if err := g.Wait(); err != nil {
			b.Fatal(err)
		}
		db.Close()
		b.ReportMetric(float64(bundles.Load()), "bundles")
	}
}

// BenchmarkOpen is Open alone: the schema and the small tables.
func BenchmarkOpen(b *testing.B) {
	path := benchDB(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		db, err := Open(context.Background(), path)
		if err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
}

// BenchmarkReadAllPackages opens the large database and reads every
// package with manifests using two goroutines, as migrate does.
func BenchmarkReadAllPackages(b *testing.B) { benchReadAll(b) }

// BenchmarkReadAllPackagesSkipManifests is the server's path: no manifests.
func BenchmarkReadAllPackagesSkipManifests(b *testing.B) { benchReadAll(b, SkipManifests()) }
