package migrate

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/catalogtest"
	"github.com/operator-catalog/olmcat/internal/testutil/dbbuild"
	"github.com/operator-catalog/olmcat/internal/testutil/testinput"
)

// withoutCSVEdges returns b with spec.replaces and spec.skips removed from
// its CSV (in CSV and in Objects), as in bundles of an index built with
// opm index add --mode semver.
func withoutCSVEdges(t *testing.T, b dbbuild.Bundle) dbbuild.Bundle {
	t.Helper()
	strip := func(raw json.RawMessage) json.RawMessage {
		var obj map[string]any
		require.NoError(t, json.Unmarshal(raw, &obj))
		if obj["kind"] != "ClusterServiceVersion" {
			return raw
		}
		spec := obj["spec"].(map[string]any)
		delete(spec, "replaces")
		delete(spec, "skips")
		out, err := json.Marshal(obj)
		require.NoError(t, err)
		return out
	}
	b.CSV = strip(b.CSV)
	objs := make([]json.RawMessage, len(b.Objects))
	for i, o := range b.Objects {
		objs[i] = strip(o)
	}
	b.Objects = objs
	return b
}

// TestChannelEntryChainIsReplaces builds the shape of indexes made with
// opm index add --mode semver: no bundle row carries replaces or skips,
// and channel_entry links each entry to the next lower version at the
// next depth. opm's listBundlesQuery turns every link reachable from the
// depth-0 head into replaces (legacy-sqlite-and-migrate.md §2.3, §3.3);
// the migration must do the same, not write skips.
func TestChannelEntryChainIsReplaces(t *testing.T) {
	bundles := catalogtest.MustGenerate(t, catalogtest.WithBundles(3),
		catalogtest.LegacyBenchIndex("../fixtures/bundles/opm-bundles/etcd.0.9.2")).DBBundles()
	for i := range bundles {
		bundles[i] = withoutCSVEdges(t, bundles[i])
	}
	// Loaders that gave channel heads depth 1 (before opm fixed every add
	// mode to start at depth 0) left tables whose minimum depth is 1: opm's
	// tip is the minimum over the whole table, not 0.
	shiftDepths := "UPDATE channel_entry SET depth = depth + 1"
	for _, tc := range []struct {
		name  string
		opts  []dbbuild.Option
		fixup []string
	}{
		{"semver mode", []dbbuild.Option{dbbuild.WithSemverMode("pkg-0000")}, nil},
		{"semver mode, heads at depth 1", []dbbuild.Option{dbbuild.WithSemverMode("pkg-0000")}, []string{shiftDepths}},
		{"semver mode, heads at depth 1, csv cleared on non-heads",
			[]dbbuild.Option{dbbuild.WithSemverMode("pkg-0000"), dbbuild.WithClearedNonHeads()}, []string{shiftDepths}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "index.db")
			require.NoError(t, dbbuild.Build(context.Background(), db, 10, bundles, tc.opts...))
			testinput.ExecSQL(t, db, tc.fixup...)
			cfg, _, err := Load(context.Background(), db)
			require.NoError(t, err)
			for _, ch := range cfg.Channels {
				got := map[string]string{}
				for _, e := range ch.Entries {
					assert.Empty(t, e.Skips, "channel %s, entry %s", ch.Name, e.Name)
					got[e.Name] = e.Replaces
				}
				assert.Equal(t, map[string]string{
					"pkg-0000.v1.2.0": "pkg-0000.v1.1.0",
					"pkg-0000.v1.1.0": "pkg-0000.v1.0.0",
					"pkg-0000.v1.0.0": "",
				}, got, "channel %s", ch.Name)
			}
		})
	}
}
