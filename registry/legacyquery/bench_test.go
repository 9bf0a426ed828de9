package legacyquery

import (
	"cmp"
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/legacy"
)

// openBench indexes the large benchmark database in process (no gRPC), so
// the per-call benchmarks measure the Querier alone.
func openBench(b *testing.B) *Querier {
	b.Helper()
	ctx := context.Background()
	db, err := legacy.Open(ctx, benchDB(b), legacy.Lazy(), legacy.SkipManifests())
	require.NoError(b, err)
	q, err := New(ctx, db)
	if err != nil {
		db.Close()
	}
	require.NoError(b, err)
	b.Cleanup(func() { q.Close() })
	return q
}

// listRows are the ListBundles rows of q's catalog.
func listRows(b *testing.B, q *Querier) []listRow {
	b.Helper()
	g, err := q.graph(context.Background())
	require.NoError(b, err)
	var rows []listRow
	require.NoError(b, g.eachRow(func(r *listRow) error {
		rows = append(rows, *r)
		return nil
	}))
	return rows
}

// BenchmarkGetBundleEveryMember is one GetBundle call (manifests read,
// split and the CSV picked), cycling over every channel membership of the
// large database, as a parity run does.
func BenchmarkGetBundleEveryMember(b *testing.B) {
	q := openBench(b)
	ctx := context.Background()
	rows := listRows(b, q)
	i := 0
	for b.Loop() {
		r := &rows[i%len(rows)]
		i++
		_, err := q.GetBundle(ctx, r.pkg, r.channel, r.bundle)
		require.NoError(b, err)
	}
}

// BenchmarkGetBundleThatReplacesEveryMember asks, for every membership in
// turn, for the bundle that replaces it (the heads have none).
func BenchmarkGetBundleThatReplacesEveryMember(b *testing.B) {
	q := openBench(b)
	ctx := context.Background()
	rows := listRows(b, q)
	i := 0
	for b.Loop() {
		r := &rows[i%len(rows)]
		i++
		q.GetBundleThatReplaces(ctx, r.bundle, r.pkg, r.channel)
	}
}

// BenchmarkBundleWalk walks the large database the way a client that
// checks a whole catalog does (parity, a catalog browser): GetBundle of
// every member of a channel in name order, then GetBundleThatReplaces of
// each, channel after channel. One op is one whole walk; it reports the
// manifest cache's hit rate.
func BenchmarkBundleWalk(b *testing.B) {
	q := openBench(b)
	ctx := context.Background()
	type member struct{ pkg, channel, name string }
	var members []member
	rows := listRows(b, q)
	for i := range rows {
		r := &rows[i]
		members = append(members, member{r.pkg, r.channel, r.bundle})
	}
	slices.SortFunc(members, func(a, b member) int {
		return cmp.Or(cmp.Compare(a.pkg, b.pkg), cmp.Compare(a.channel, b.channel), cmp.Compare(a.name, b.name))
	})
	for b.Loop() {
		for _, m := range members {
			_, err := q.GetBundle(ctx, m.pkg, m.channel, m.name)
			require.NoError(b, err)
		}
		for _, m := range members {
			q.GetBundleThatReplaces(ctx, m.name, m.pkg, m.channel)
		}
	}
	b.ReportMetric(float64(len(members)), "members")
	b.ReportMetric(q.cache.HitRate(), "cache-hit-%")
}
