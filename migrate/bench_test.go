package migrate

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/fixtures/dbbuild"
)

var (
	benchPackages = flag.Int("migrate.bench-packages", 20, "packages of the BenchmarkMigrate database")
	benchBundles  = flag.Int("migrate.bench-bundles", 25, "bundles per package of the BenchmarkMigrate database")
)

// genBenchBundles makes packages*perPackage bundles from the real etcd
// 0.9.2 bundle: each package a replaces chain in two channels, each bundle
// skipping an absent one, like the reference measurements.
func genBenchBundles(tb testing.TB, packages, perPackage int) []dbbuild.Bundle {
	tb.Helper()
	base, err := dbbuild.ReadBundleDir("../fixtures/bundles/opm-bundles/etcd.0.9.2")
	require.NoError(tb, err)
	var out []dbbuild.Bundle
	for p := range packages {
		pkg := fmt.Sprintf("bench-%04d", p)
		for i := range perPackage {
			name := fmt.Sprintf("%s.v1.0.%d", pkg, i)
			var csv map[string]any
			require.NoError(tb, json.Unmarshal(base.CSV, &csv))
			csv["metadata"].(map[string]any)["name"] = name
			spec := csv["spec"].(map[string]any)
			spec["version"] = fmt.Sprintf("1.0.%d", i)
			delete(spec, "replaces")
			if i > 0 {
				spec["replaces"] = fmt.Sprintf("%s.v1.0.%d", pkg, i-1)
			}
			spec["skips"] = []string{fmt.Sprintf("%s.v0.0.%d", pkg, i)}
			raw, err := json.Marshal(csv)
			require.NoError(tb, err)
			b := base
			b.Package = pkg
			b.Channels = []string{"alpha", "stable"}
			b.DefaultChannel = "stable"
			b.CSV = raw
			b.Objects = nil
			for _, o := range base.Objects {
				var k struct{ Kind string }
				require.NoError(tb, json.Unmarshal(o, &k))
				if k.Kind == "ClusterServiceVersion" {
					o = raw
				}
				b.Objects = append(b.Objects, o)
			}
			b.Dependencies = nil
			b.Image = fmt.Sprintf("registry.invalid/bench/%s:v1.0.%d", pkg, i)
			out = append(out, b)
		}
	}
	return out
}

// benchDB builds the benchmark database, cached under the temp directory
// (keyed by its size) so that repeated runs measure only the migration.
func benchDB(b *testing.B) string {
	b.Helper()
	dir := filepath.Join(os.TempDir(), "olmcat-migrate-bench")
	path := filepath.Join(dir, fmt.Sprintf("index-%dx%d.db", *benchPackages, *benchBundles))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	require.NoError(b, os.MkdirAll(dir, 0o755))
	bundles := genBenchBundles(b, *benchPackages, *benchBundles)
	require.NoError(b, dbbuild.Build(context.Background(), path, dbbuild.MaxLevel, bundles))
	return path
}

// BenchmarkMigrate migrates a generated database (20 packages x 25
// bundles by default; see the -migrate.bench-* flags) to a temporary
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
		if _, err := Migrate(context.Background(), db, out); err != nil {
			b.Fatal(err)
		}
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
		if _, err := Migrate(context.Background(), db, out, WithMigrateLevel(MigrateLevelCSVMetadata)); err != nil {
			b.Fatal(err)
		}
		_ = os.RemoveAll(out)
	}
}
