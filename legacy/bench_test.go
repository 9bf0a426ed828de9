package legacy

import (
	"context"
	"os"
	"testing"
)

// benchDB is the large database the benchmarks read: $OLMCAT_BENCH_DB, else
// /tmp/bench/index.db (scripts/gen-bench-db.sh writes a 10,000-bundle db
// there).
func benchDB(b *testing.B) string {
	path := os.Getenv("OLMCAT_BENCH_DB")
	if path == "" {
		path = "/tmp/bench/index.db"
	}
	if _, err := os.Stat(path); err != nil {
		b.Skipf("no benchmark database at %s (run scripts/gen-bench-db.sh or set OLMCAT_BENCH_DB)", path)
	}
	return path
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
		bundles := 0
		for _, n := range names {
			pd, err := db.ReadPackage(ctx, n)
			if err != nil {
				b.Fatal(err)
			}
			bundles += len(pd.Bundles)
		}
		db.Close()
		b.ReportMetric(float64(bundles), "bundles")
	}
}

// BenchmarkReadAllPackages opens the large database and reads every
// package with manifests, as migrate does.
func BenchmarkReadAllPackages(b *testing.B) { benchReadAll(b) }

// BenchmarkReadAllPackagesSkipManifests is the server's path: no manifests.
func BenchmarkReadAllPackagesSkipManifests(b *testing.B) { benchReadAll(b, SkipManifests()) }
