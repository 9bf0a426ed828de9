package declcfg

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/catalogtest"
)

// cpuTime returns the CPU time (user + system) the process used so far:
// wall time on a shared machine says little about the work done.
func cpuTime(b *testing.B) time.Duration {
	b.Helper()
	var ru syscall.Rusage
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU seconds per iteration since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.Helper()
	b.ReportMetric((cpuTime(b)-start).Seconds()/float64(b.N), "cpu-s/op")
}

// genRealisticCatalog is genCatalog with the bundle objects of a real
// migration: four inline olm.bundle.object values per bundle (a
// ClusterServiceVersion with a long description, a CustomResourceDefinition
// with an OpenAPI schema, a Service and a ConfigMap), some 8.5 KB of JSON.
func genRealisticCatalog(tb testing.TB, pkgs, perPkg int) *DeclarativeConfig {
	tb.Helper()
	return loadGenerated(tb, catalogtest.WithPackages(pkgs), catalogtest.WithBundlesPerPackage(perPkg), catalogtest.WithSkips())
}

var (
	realistic10kOnce sync.Once
	realistic10k     *DeclarativeConfig
)

// realisticCatalog10k returns the 10,000-bundle realistic catalog (400
// packages x 25 bundles), built once per test binary.
func realisticCatalog10k(tb testing.TB) *DeclarativeConfig {
	tb.Helper()
	realistic10kOnce.Do(func() { realistic10k = genRealisticCatalog(tb, 400, 25) })
	return realistic10k
}

// BenchmarkWriteDir10k writes the 10,000-bundle realistic catalog in each
// layout and format per iteration.
func BenchmarkWriteDir10k(b *testing.B) {
	for _, bc := range []struct {
		name string
		opts []WriteOption
	}{
		{"OPMJSON", []WriteOption{WithLayout(LayoutOPM), WithFormat(FormatJSON)}},
		{"OPMYAML", []WriteOption{WithLayout(LayoutOPM), WithFormat(FormatYAML)}},
		{"Objects", []WriteOption{WithLayout(LayoutObjects), WithFormat(FormatJSON)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			cfg := realisticCatalog10k(b)
			tmp := b.TempDir()
			b.ReportAllocs()
			i := 0
			var dir string
			start := cpuTime(b)
			for b.Loop() {
				dir = filepath.Join(tmp, fmt.Sprintf("catalog-%d", i))
				i++
				require.NoError(b, WriteDir(cfg, dir, bc.opts...))
			}
			reportCPU(b, start)
			b.ReportMetric(float64(dirSize(b, dir))/1e6, "catalog-MB")
		})
	}
}

// BenchmarkLoadValidateRealistic10k loads and links the realistic
// 10,000-bundle catalog (four inline objects per bundle), written once in
// the opm layout, per iteration.
func BenchmarkLoadValidateRealistic10k(b *testing.B) {
	benchLoadValidate(b, realisticCatalog10k(b))
}

// BenchmarkLoadValidateDir loads and links the catalog directory named by
// OLMCAT_BENCH_CATALOG (e.g. a migrated real catalog) per iteration; it
// is skipped when the variable is unset.
func BenchmarkLoadValidateDir(b *testing.B) {
	dir := os.Getenv("OLMCAT_BENCH_CATALOG")
	if dir == "" {
		b.Skip("OLMCAT_BENCH_CATALOG not set")
	}
	ctx := context.Background()
	b.ReportAllocs()
	start := cpuTime(b)
	for b.Loop() {
		cfg, err := LoadDir(ctx, dir)
		require.NoError(b, err)
		_, _, err = toModel(cfg)
		require.NoError(b, err)
	}
	reportCPU(b, start)
	b.ReportMetric(float64(dirSize(b, dir))/1e6, "catalog-MB")
}

// BenchmarkWriteDirObjectsDir loads the catalog directory named by
// OLMCAT_BENCH_CATALOG once and writes it in the objects layout per
// iteration; it is skipped when the variable is unset.
func BenchmarkWriteDirObjectsDir(b *testing.B) {
	dir := os.Getenv("OLMCAT_BENCH_CATALOG")
	if dir == "" {
		b.Skip("OLMCAT_BENCH_CATALOG not set")
	}
	cfg, err := LoadDir(context.Background(), dir)
	require.NoError(b, err)
	tmp := b.TempDir()
	b.ReportAllocs()
	i := 0
	start := cpuTime(b)
	for b.Loop() {
		require.NoError(b, WriteDir(cfg, filepath.Join(tmp, fmt.Sprintf("catalog-%d", i)), WithLayout(LayoutObjects)))
		i++
	}
	reportCPU(b, start)
}
