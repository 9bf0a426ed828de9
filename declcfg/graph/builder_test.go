package graph_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/graph"
)

// TestBuilderPartsSameAsBuild: a graph built from the packages
// declcfg.EachPackage hands over, one part each, is the graph of the
// whole catalog, with every filter, and fails the same way.
func TestBuilderPartsSameAsBuild(t *testing.T) {
	filters := map[string][]graph.Option{
		"all":             nil,
		"package etcd":    {graph.WithPackage("etcd")},
		"channel alpha":   {graph.WithChannel("alpha")},
		"missing package": {graph.WithPackage("nope")},
		"missing channel": {graph.WithChannel("nope")},
	}
	for name, dir := range fixtures {
		cfg, err := declcfg.LoadDir(context.Background(), dir)
		require.NoError(t, err)
		for fname, opts := range filters {
			t.Run(name+"/"+fname, func(t *testing.T) {
				want, wantErr := graph.Build(cfg, opts...)
				b := graph.NewBuilder(opts...)
				require.NoError(t, declcfg.EachPackage(context.Background(), dir, func(_ string, part *declcfg.DeclarativeConfig) error {
					b.Add(part)
					return nil
				}))
				got, err := b.Graph()
				if wantErr != nil {
					require.EqualError(t, err, wantErr.Error())
					return
				}
				require.NoError(t, err)
				require.Equal(t, want, got)
			})
		}
	}
}
