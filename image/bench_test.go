package image_test

import (
	"archive/tar"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/image/imagetest"
	"github.com/operator-catalog/olmcat/migrate"
)

// BenchmarkMigrateImage migrates the database named by OLMCAT_BENCH_DB
// (scripts/gen-bench-db.sh makes a 10,000-bundle one) from the file,
// from an image pushed to a loopback registry with an empty layer cache
// (pull, extract, migrate), and with a warm cache (no layer request); and
// copies the file, the floor any image read adds to. scripts/bench-image.sh
// runs it.
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
		if _, err := migrate.Migrate(ctx, path, out); err != nil {
			b.Fatal(err)
		}
		os.RemoveAll(out)
	}
	fromImage := func(b *testing.B, cache string) {
		u, err := image.Unpack(ctx, ref, image.WithUseHTTP(true), image.WithCacheDir(cache), image.WithPreferSQLite(true), noKeys)
		if err != nil {
			b.Fatal(err)
		}
		migrateFrom(b, u.Local)
		u.Close()
	}
	b.Run("file", func(b *testing.B) {
		for b.Loop() {
			migrateFrom(b, db)
		}
	})
	b.Run("copy-file", func(b *testing.B) {
		for b.Loop() {
			copyFile(b, db, filepath.Join(b.TempDir(), "copy.db"))
		}
	})
	b.Run("image-cold", func(b *testing.B) {
		for b.Loop() {
			cache := filepath.Join(b.TempDir(), "cache")
			fromImage(b, cache)
			os.RemoveAll(cache)
		}
	})
	b.Run("image-warm", func(b *testing.B) {
		cache := b.TempDir()
		fromImage(b, cache)
		b.ResetTimer()
		for b.Loop() {
			fromImage(b, cache)
		}
	})
}

// dbLayer writes a gzip layer holding db at database/index.db, through a
// tar file (the database is hundreds of megabytes).
func dbLayer(b *testing.B, db string) v1.Layer {
	in, err := os.Open(db)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	st, _ := in.Stat()
	p := filepath.Join(b.TempDir(), "layer.tar")
	out, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	tw := tar.NewWriter(out)
	if err := tw.WriteHeader(&tar.Header{Name: "database/index.db", Mode: 0o644, Size: st.Size(), Typeflag: tar.TypeReg}); err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(tw, in); err != nil {
		b.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		b.Fatal(err)
	}
	out.Close()
	l, err := tarball.LayerFromFile(p, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		b.Fatal(err)
	}
	return l
}

func copyFile(b *testing.B, src, dst string) {
	in, err := os.Open(src)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	out.Close()
	os.Remove(dst)
}
