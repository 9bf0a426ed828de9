package parity

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/migrate"
)

// benchDBEnv names the legacy index BenchmarkParity checks against its
// migration; scripts/gen-bench-db.sh writes the default one.
const benchDBEnv = "OLMCAT_PARITY_BENCH_DB"

// BenchmarkParity checks a large legacy index (10,000 bundles from
// scripts/gen-bench-db.sh) against its fresh migration, each side served
// in process and over loopback gRPC, and reports the calls made per RPC.
// It skips when the database is absent.
//
//	scripts/gen-bench-db.sh && go test ./registry/parity -run '^$' -bench Parity -benchtime 1x
func BenchmarkParity(b *testing.B) {
	db := os.Getenv(benchDBEnv)
	if db == "" {
		db = "/tmp/bench/index.db"
	}
	if _, err := os.Stat(db); err != nil {
		b.Skipf("%s absent (generate it with scripts/gen-bench-db.sh or set %s)", db, benchDBEnv)
	}
	ctx := context.Background()
	out := filepath.Join(b.TempDir(), "catalog")
	_, err := migrate.Migrate(ctx, db, out)
	require.NoError(b, err, "migrate %s", db)
	for _, loopback := range []bool{false, true} {
		name := map[bool]string{false: "in-process", true: "loopback"}[loopback]
		b.Run(name, func(b *testing.B) { benchCheck(b, ctx, db, out, WithLoopback(loopback)) })
	}
}

func benchCheck(b *testing.B, ctx context.Context, db, out string, opts ...Option) {
	b.Helper()
	var res *Result
	for range b.N {
		var err error
		res, err = Check(ctx, db, out, opts...)
		require.NoError(b, err)
	}
	b.StopTimer()
	for _, s := range res.Stats {
		b.Logf("%-36s %6d calls, %6d identical, %6d benign, %d losses", s.RPC, s.Calls, s.Identical, s.Benign, s.Losses)
	}
	b.ReportMetric(float64(res.Calls), "calls/op")
	b.ReportMetric(float64(res.LossCalls), "losses/op")
	assert.Zero(b, res.LossCalls, "calls that lost data: %v", res.Err(false))
}
