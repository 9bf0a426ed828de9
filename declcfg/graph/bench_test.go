package graph_test

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/graph"
)

// BenchmarkLargestPackageSVG draws the package with the most bundles of
// OLMCAT_BENCH_CATALOG (e.g. the migration of scripts/gen-bench-db.sh's
// database), from loading its blobs (declcfg.WithPackages) to the SVG:
// what olmcat graph <catalog> --package P -o svg does.
func BenchmarkLargestPackageSVG(b *testing.B) {
	dir := os.Getenv("OLMCAT_BENCH_CATALOG")
	if dir == "" {
		b.Skip("OLMCAT_BENCH_CATALOG not set")
	}
	ctx := context.Background()
	all, err := declcfg.LoadDir(ctx, dir)
	require.NoError(b, err)
	count := map[string]int{}
	largest := ""
	for _, bd := range all.Bundles {
		count[bd.Package]++
		if count[bd.Package] > count[largest] || (count[bd.Package] == count[largest] && bd.Package < largest) {
			largest = bd.Package
		}
	}
	all = nil
	b.Logf("largest package %s: %d bundles", largest, count[largest])
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cfg, err := declcfg.LoadDir(ctx, dir, declcfg.WithPackages(largest))
		require.NoError(b, err)
		g, err := graph.Build(cfg, graph.WithPackage(largest))
		require.NoError(b, err)
		require.NoError(b, graph.WriteSVG(io.Discard, g))
	}
}
