package migrate

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/catalogtest"
	"github.com/operator-catalog/olmcat/internal/testutil/dbbuild"
)

var benchBundles = flag.Int("migrate.bench-bundles", 500, "bundles of the BenchmarkMigrate database (catalogtest.DefaultBundlesPerPackage per package)")

// genBenchBundles makes the bundles of the benchmark legacy index from the
// real etcd 0.9.2 bundle (catalogtest.DefaultBundlesPerPackage bundles per
// package).
func genBenchBundles(tb testing.TB, bundles int) []dbbuild.Bundle {
	tb.Helper()
	return catalogtest.MustGenerate(tb, catalogtest.WithBundles(bundles),
		catalogtest.LegacyBenchIndex("../fixtures/bundles/opm-bundles/etcd.0.9.2")).DBBundles()
}

// benchDB builds the benchmark database, cached under the temp directory
// (keyed by its size) so that repeated runs measure only the migration.
func benchDB(b *testing.B) string {
	b.Helper()
	dir := filepath.Join(os.TempDir(), "olmcat-migrate-bench")
	path := filepath.Join(dir, fmt.Sprintf("index-synthetic-%d.db", *benchBundles))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	require.NoError(b, os.MkdirAll(dir, 0o755))
	bundles := genBenchBundles(b, *benchBundles)
	require.NoError(b, dbbuild.Build(context.Background(), path, dbbuild.MaxLevel, bundles))
	return path
}

// BenchmarkMigrate migrates a generated database (500 bundles in
// packages of 25 by default; see -migrate.bench-bundles) to a temporary
// directory. scripts/bench-migrate.sh measures the 10,000-bundle case with
// the built binary.
func BenchmarkMigrate(b *testing.B) {
	db := benchDB(b)
	st, err := os.Stat(db)
	require.NoError(b, err)
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		out := filepath.Join(b.TempDir(), fmt.Sprintf("catalog-%d", i))
		_, err := Migrate(context.Background(), db, out)
		require.NoError(b, err)
		_ = os.RemoveAll(out)
	}
}

// BenchmarkMigrateCSVMetadata is BenchmarkMigrate with
// --migrate-level bundle-object-to-csv-metadata.
func BenchmarkMigrateCSVMetadata(b *testing.B) {
	db := benchDB(b)
	st, err := os.Stat(db)
	require.NoError(b, err)
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		out := filepath.Join(b.TempDir(), fmt.Sprintf("catalog-%d", i))
		_, err := Migrate(context.Background(), db, out, WithMigrateLevel(MigrateLevelCSVMetadata))
		require.NoError(b, err)
		_ = os.RemoveAll(out)
	}
}
