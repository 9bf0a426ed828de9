package declcfgquery

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/model"
	"github.com/operator-catalog/olmcat/internal/testutil/catalogtest"
)

// BenchmarkIndexBuild10k is the index build alone (convert every package
// of a validated lean model, number its messages, index), without
// reading the files: what Load adds to the validating load.
func BenchmarkIndexBuild10k(b *testing.B) {
	dir := catalogtest.Dir(b, catalogtest.WithBundles(10000), catalogtest.WithBundlesPerPackage(12))
	cfg, err := declcfg.LoadDir(context.Background(), dir, declcfg.WithLeanBundles())
	require.NoError(b, err)
	m, err := model.FromDeclcfg(cfg)
	require.NoError(b, err)
	var q *Querier
	for b.Loop() {
		ib := newIndexBuilder()
		for _, name := range sortedNames(m.Packages) {
			cp := &convertedPackage{model: m.Packages[name]}
			cp.convert()
			require.NoError(b, cp.err)
			require.NoError(b, ib.addPackage(cp.pkg, cp.bundles, nil))
		}
		q, err = ib.finish(&memSource{})
		require.NoError(b, err)
	}
	b.ReportMetric(float64(q.stats.ChannelEntries), "channel-bundles")
}
