package action_test

import (
	"context"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/registry"
	"github.com/operator-catalog/olmcat/registry/parity"
	"github.com/operator-catalog/olmcat/registry/source"
)

// serveCatalog serves the catalog at path over gRPC on a loopback TCP
// port until the test ends and returns its grpc:// reference.
func serveCatalog(t *testing.T, path string) string {
	t.Helper()
	q, _, err := source.Open(context.Background(), path)
	require.NoError(t, err)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- registry.Serve(ctx, lis, q) }()
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-done)
		assert.NoError(t, q.Close())
	})
	return input.GRPCScheme + lis.Addr().String()
}

func TestParity(t *testing.T) {
	live := serveCatalog(t, smallCatalog)
	for _, tc := range []struct {
		name        string
		p           action.Parity
		option      string // the option of the usage error
		fails       bool   // an error that is not a usage error
		ok, strict  bool   // Result.OK and Result.OK(true)
		sqliteSides []string
	}{
		{name: "sqlite vs its migration", p: action.Parity{Left: smallIndex, Right: smallCatalog, MaxDiffs: -1},
			ok: true, sqliteSides: []string{smallIndex}},
		{name: "a catalog with itself", p: action.Parity{Left: smallCatalog, Right: smallCatalog, Loopback: true}, ok: true, strict: true},
		{name: "a live server", p: action.Parity{Left: live, LeftKind: input.KindDeclcfg, Right: smallCatalog, Concurrency: 2},
			ok: true, strict: true},
		{name: "a live server without its kind", p: action.Parity{Left: smallCatalog, Right: live}, option: "Parity.RightKind"},
		{name: "an unknown kind", p: action.Parity{Left: smallCatalog, LeftKind: "oracle", Right: smallCatalog}, option: "Parity.LeftKind"},
		{name: "a missing side", p: action.Parity{Left: smallCatalog, Right: "testdata/missing"}, fails: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sqlite []string
			var at *action.Located
			samples := &parity.RuleSamples{PerRule: 5}
			tc.p.OnSQLite = func(_ context.Context, ref, _ string) { sqlite = append(sqlite, ref) }
			tc.p.Locate = true
			tc.p.Reports = func(l *action.Located) []parity.Report {
				at = l
				return []parity.Report{samples}
			}
			res, err := tc.p.Run(context.Background())
			switch {
			case tc.option != "":
				var ae *action.Error
				require.ErrorAs(t, err, &ae)
				assert.Equal(t, action.KindUsage, ae.Kind)
				assert.Equal(t, tc.option, ae.Option)
				return
			case tc.fails:
				require.Error(t, err)
				assert.Equal(t, action.KindFailed, action.KindOf(err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.ok, res.Result.OK(false))
			assert.Equal(t, tc.strict, res.Result.OK(true))
			assert.Equal(t, tc.sqliteSides, sqlite)
			assert.Equal(t, tc.strict, len(samples.Diffs) == 0, "the report got the differences")
			require.NotNil(t, at, "the declarative config directory given is located")
			assert.Equal(t, smallCatalog, at.Dir)
			if tc.p.MaxDiffs < 0 {
				assert.Len(t, res.Result.Diffs, res.Result.DiffCounts[parity.Loss]+res.Result.DiffCounts[parity.Benign])
			}
		})
	}
}
