package legacyquery

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/legacy"
)

// openBench indexes the large benchmark database in process (no gRPC), so
// the per-call benchmarks measure the Querier alone.
func openBench(b *testing.B) *Querier {
	ctx := context.Background()
	db, err := legacy.Open(ctx, benchDB(b), legacy.SkipManifests())
	require.NoError(b, err)
	q, err := New(ctx, db)
	if err != nil {
		db.Close()
		b.Fatal(err)
	}
	b.Cleanup(func() { q.Close() })
	return q
}

// BenchmarkGetBundleEveryMember is one GetBundle call (manifests read,
// split and the CSV picked), cycling over every channel membership of the
// large database, as a parity run does.
func BenchmarkGetBundleEveryMember(b *testing.B) {
	q := openBench(b)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		r := &q.rows[i%len(q.rows)]
		i++
		_, err := q.GetBundle(ctx, r.pkg, r.channel, r.b.name)
		require.NoError(b, err)
	}
}

// BenchmarkGetBundleThatReplacesEveryMember asks, for every membership in
// turn, for the bundle that replaces it (the heads have none).
func BenchmarkGetBundleThatReplacesEveryMember(b *testing.B) {
	q := openBench(b)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		r := &q.rows[i%len(q.rows)]
		i++
		q.GetBundleThatReplaces(ctx, r.b.name, r.pkg, r.channel)
	}
}
