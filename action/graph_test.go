package action_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/declcfg/graph"
	"github.com/operator-catalog/olmcat/input"
)

// graphPackages are the packages of g, in order.
func graphPackages(g *graph.Graph) []string {
	var out []string
	for _, p := range g.Packages {
		out = append(out, p.Name)
	}
	return out
}

// TestGraph builds the graphs of the small-fbb catalog as a directory
// and as the sqlite index it was migrated from (Legacy told), whole or
// one package; a bundle directory is refused.
func TestGraph(t *testing.T) {
	bar := filepath.Join(bundles, "small-fbb/bar-bundle-v0.1.0")
	for _, tc := range []struct {
		name   string
		g      action.Graph
		want   []string
		legacy []string
	}{
		{name: "directory", g: action.Graph{Ref: smallCatalog}, want: []string{"bar", "baz", "foo"}},
		{name: "one package", g: action.Graph{Ref: smallCatalog, Package: "baz"}, want: []string{"baz"}},
		{name: "sqlite index", g: action.Graph{Ref: smallIndex, Package: "foo"}, want: []string{"foo"}, legacy: []string{smallIndex}},
		{name: "bundle directory", g: action.Graph{Ref: bar}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l legacyRecorder
			tc.g.Legacy = l.legacy()
			res, err := tc.g.Run(context.Background())
			if tc.want == nil {
				var be *input.BundleError
				require.ErrorAs(t, err, &be)
				require.Equal(t, input.BundleError{Ref: bar}, *be)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, graphPackages(res.Graph))
			require.Equal(t, tc.legacy, l.deprecated)
		})
	}
}

// TestRenderGraph adds several indexes and bundles to one graph, as opm
// alpha render-graph does.
func TestRenderGraph(t *testing.T) {
	bar := filepath.Join(bundles, "small-fbb/bar-bundle-v0.1.0")
	res, err := action.RenderGraph{Refs: []string{smallIndex, bar}, Package: "bar"}.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{"bar"}, graphPackages(res.Graph))
	_, err = action.RenderGraph{Refs: []string{filepath.Join(smallCatalog, "missing")}}.Run(context.Background())
	require.ErrorContains(t, err, "render-graph "+filepath.Join(smallCatalog, "missing")+": ")
}
