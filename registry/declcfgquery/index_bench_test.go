package declcfgquery

import (
	"context"
	"testing"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/model"
	"github.com/operator-catalog/olmcat/registry/internal/catalogtest"
)

// BenchmarkIndexBuild10k is the index build alone (convert every package
// of a validated lean model, number its messages, index), without
// reading the files: what Load adds to the validating load.
func BenchmarkIndexBuild10k(b *testing.B) {
	dir := b.TempDir()
	if err := catalogtest.Generate(dir, 10000); err != nil {
		b.Fatal(err)
	}
	cfg, err := declcfg.LoadDir(context.Background(), dir, declcfg.WithLeanBundles())
	if err != nil {
		b.Fatal(err)
	}
	m, err := model.FromDeclcfg(cfg)
	if err != nil {
		b.Fatal(err)
	}
	var q *Querier
	for b.Loop() {
		ib := newIndexBuilder()
		for _, name := range sortedNames(m.Packages) {
			cp := &convertedPackage{model: m.Packages[name]}
			if cp.convert(); cp.err != nil {
				b.Fatal(cp.err)
			}
			if err := ib.addPackage(cp.pkg, cp.bundles, nil); err != nil {
				b.Fatal(err)
			}
		}
		if q, err = ib.finish(&memSource{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(q.stats.ChannelEntries), "channel-bundles")
}
