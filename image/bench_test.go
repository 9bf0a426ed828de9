package image_test

import (
	"archive/tar"
	"context"
	"io"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
	"github.com/operator-catalog/olmcat/migrate"
)

// BenchmarkMigrateImage migrates the database named by OLMCAT_BENCH_DB
// (scripts/gen-bench-db.sh makes a 10,000-bundle one) from the file,
// from an image pushed to a loopback registry with an empty layer cache
// (pull, extract, migrate), and with a warm cache (no layer request); and
// copies the file, what any read of the image adds at least.
// scripts/bench-image.sh runs it.
func BenchmarkMigrateImage(b *testing.B) {
	db := os.Getenv("OLMCAT_BENCH_DB")
	if db == "" {
		b.Skip("OLMCAT_BENCH_DB not set (scripts/bench-image.sh sets it)")
	}
	reg := imagetest.New(b)
	layer := dbLayer(b, db)
	ref := reg.Push(b, "bench/index:v1", imagetest.Image(b, map[string]string{image.LabelDatabase: "/database/index.db"}, nil, layer))
	ctx := context.Background()
	noKeys := image.WithKeychain(image.AuthFileKeychain(filepath.Join(b.TempDir(), "none.json")))
	migrateFrom := func(b *testing.B, path string) {
		out := filepath.Join(b.TempDir(), "out")
		_, err := migrate.Migrate(ctx, path, out)
		require.NoError(b, err)
		os.RemoveAll(out)
	}
	fromImage := func(b *testing.B, cache string) {
		u, err := image.ExtractCatalog(ctx, ref, image.WithUseHTTP(true), image.WithCacheDir(cache), image.WithPreferSQLite(true), noKeys)
		require.NoError(b, err)
		migrateFrom(b, u.Local)
		u.Close()
	}
	// The four are timed in turn within each iteration and reported as
	// medians and as per-iteration ratios to the file migrate, so that a
	// shared machine's drift cancels out of the comparison.
	warmCache := b.TempDir()
	fromImage(b, warmCache)
	// CPU is the whole test process's (user+sys), so the image runs
	// include the loopback registry serving them.
	var fileCPU, coldCPU, warmCPU []float64
	timed := func(cpu *[]float64, f func()) float64 {
		start, startCPU := time.Now(), processCPU(b)
		f()
		if cpu != nil {
			*cpu = append(*cpu, processCPU(b)-startCPU)
		}
		return time.Since(start).Seconds()
	}
	var file, copying, cold, warm, coldRatio, warmRatio []float64
	for b.Loop() {
		f := timed(&fileCPU, func() { migrateFrom(b, db) })
		c := timed(nil, func() { copyFile(b, db, filepath.Join(b.TempDir(), "copy.db")) })
		cache := filepath.Join(b.TempDir(), "cache")
		co := timed(&coldCPU, func() { fromImage(b, cache) })
		os.RemoveAll(cache)
		w := timed(&warmCPU, func() { fromImage(b, warmCache) })
		file, copying, cold, warm = append(file, f), append(copying, c), append(cold, co), append(warm, w)
		coldRatio, warmRatio = append(coldRatio, co/(f+c)), append(warmRatio, w/f)
	}
	for _, m := range []struct {
		unit string
		v    []float64
	}{{"file-s", file}, {"copy-s", copying}, {"cold-s", cold}, {"warm-s", warm}, {"cold/(file+copy)", coldRatio}, {"warm/file", warmRatio},
		{"file-cpu-s", fileCPU}, {"cold-cpu-s", coldCPU}, {"warm-cpu-s", warmCPU}} {
		b.ReportMetric(median(m.v), m.unit)
	}
	var ru syscall.Rusage
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	// The peak of the whole benchmark process (registry and layer too).
	b.ReportMetric(float64(ru.Maxrss)/1024, "peak-rss-MB")
}

// processCPU is the user+sys CPU seconds this process used so far.
func processCPU(b *testing.B) float64 {
	b.Helper()
	var ru syscall.Rusage
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// dbLayer writes a gzip layer holding db at database/index.db, through a
// tar file (the database is hundreds of megabytes).
func dbLayer(b *testing.B, db string) v1.Layer {
	b.Helper()
	in, err := os.Open(db)
	require.NoError(b, err)
	defer in.Close()
	st, _ := in.Stat()
	p := filepath.Join(b.TempDir(), "layer.tar")
	out, err := os.Create(p)
	require.NoError(b, err)
	tw := tar.NewWriter(out)
	require.NoError(b, tw.WriteHeader(&tar.Header{Name: "database/index.db", Mode: 0o644, Size: st.Size(), Typeflag: tar.TypeReg}))
	_, err = io.Copy(tw, in)
	require.NoError(b, err)
	require.NoError(b, tw.Close())
	out.Close()
	l, err := tarball.LayerFromFile(p, tarball.WithMediaType(types.OCILayer))
	require.NoError(b, err)
	return l
}

func copyFile(b *testing.B, src, dst string) {
	b.Helper()
	in, err := os.Open(src)
	require.NoError(b, err)
	defer in.Close()
	out, err := os.Create(dst)
	require.NoError(b, err)
	_, err = io.Copy(out, in)
	require.NoError(b, err)
	out.Close()
	os.Remove(dst)
}
