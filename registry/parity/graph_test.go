package parity

import (
	"context"
	"net"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/registry"
	"github.com/operator-catalog/olmcat/registry/source"
)

// serveGRPC serves the catalog at path on loopback until the test ends
// and returns its grpc:// reference.
func serveGRPC(t *testing.T, path string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	q, _, err := source.Open(ctx, path)
	require.NoError(t, err)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- registry.Serve(ctx, lis, q) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
		q.Close()
	})
	return "grpc://" + lis.Addr().String()
}

// replacesTurnedIntoSkip writes small-fbb's catalog with foo.v0.2.0's
// replaces edge (in channel beta) turned into a skip: the same bundles,
// the same reachable set, another upgrade graph.
func replacesTurnedIntoSkip(t *testing.T) string {
	t.Helper()
	cfg, err := declcfg.LoadDir(context.Background(), fixtureOPM("small-fbb"))
	require.NoError(t, err)
	changed := false
	for i := range cfg.Channels {
		ch := &cfg.Channels[i]
		if ch.Package != "foo" || ch.Name != "beta" {
			continue
		}
		for j := range ch.Entries {
			e := &ch.Entries[j]
			if e.Name == "foo.v0.2.0" && e.Replaces != "" {
				e.Skips = append(e.Skips, e.Replaces)
				e.Replaces = ""
				changed = true
			}
		}
	}
	require.True(t, changed)
	out := filepath.Join(t.TempDir(), "catalog")
	require.NoError(t, declcfg.WriteDir(cfg, out))
	return out
}

// TestGraphComparison: a replaces edge turned into a skip is a loss, found
// by the direct per-channel graph comparison whatever the per-RPC rules
// say, for every pair of side kinds; rules that explain sqlite vs
// declarative config differences apply only to that pair, so two
// declarative config servers over the wire must answer identically.
func TestGraphComparison(t *testing.T) {
	ctx := context.Background()
	changed := replacesTurnedIntoSkip(t)
	original := fixtureOPM("small-fbb")
	origGRPC, changedGRPC := serveGRPC(t, original), serveGRPC(t, changed)

	for _, tc := range []struct {
		name        string
		left, right string
		opts        []Option
	}{
		{"two local catalogs", original, changed, nil},
		{"sqlite vs catalog", fixtureDB("small-fbb"), changed, nil},
		{"sqlite vs catalog server", fixtureDB("small-fbb"), changedGRPC, []Option{WithKinds("", input.KindDeclcfg)}},
		{"two catalog servers", origGRPC, changedGRPC, []Option{WithKinds(input.KindDeclcfg, input.KindDeclcfg)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Check(ctx, tc.left, tc.right, tc.opts...)
			require.NoError(t, err)
			assert.False(t, res.OK(false), "a replaces edge turned into a skip is a loss")
			var fields []string
			for _, g := range res.Graph {
				if g.Package == "foo" && g.Channel == "beta" && g.Entry == "foo.v0.2.0" {
					fields = append(fields, g.Field)
				}
			}
			assert.ElementsMatch(t, []string{"replaces", "skips"}, fields, "%+v", res.Graph)
			assert.Positive(t, res.GraphChannels)
		})
	}

	// Same-kind servers: no backend-asymmetry rule may call a difference benign.
	res, err := Check(ctx, origGRPC, changedGRPC, WithKinds(input.KindDeclcfg, input.KindDeclcfg))
	require.NoError(t, err)
	for _, d := range res.Diffs {
		assert.Equal(t, Loss, d.Class, "%+v", d)
	}
	// Identical catalogs over the wire: no difference at all.
	res, err = Check(ctx, original, origGRPC, WithKinds("", input.KindDeclcfg))
	require.NoError(t, err)
	assert.Empty(t, res.Diffs)
	assert.Empty(t, res.Graph)

	// A live server's backend must be named.
	_, err = Check(ctx, origGRPC, changedGRPC)
	assert.ErrorContains(t, err, "kind")
}

// TestRulesExplainThemselves: rule texts are printed to users who do not
// have the research notes, so none may cite a section of them.
func TestRulesExplainThemselves(t *testing.T) {
	for _, r := range Rules {
		assert.NotContains(t, r.Explanation, "§", r.Name)
		assert.Greater(t, len(r.Explanation), 20, r.Name)
	}
}
