package main

import (
	"math"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/runtimetune"
)

// TestMigrateBudget: a plain migrate runs under migrate's collector
// budget; --verify and --report-html, which hold catalog-sized state,
// under none.
func TestMigrateBudget(t *testing.T) {
	assert.Equal(t, runtimetune.Migrate, migrateBudget(&migrateFlags{}), "migrate")
	assert.Equal(t, runtimetune.Budget{}, migrateBudget(&migrateFlags{verify: true}), "migrate --verify")
	assert.Equal(t, runtimetune.Budget{}, migrateBudget(&migrateFlags{reportHTML: "r.html"}), "migrate --report-html")
}

// TestGCBudgetsAreRestored: the budgets the commands enter are undone
// when the command ends, so commands run in one process (these tests, a
// library caller) do not inherit them.
func TestGCBudgetsAreRestored(t *testing.T) {
	db := filepath.Join(legacyFixtures, "small-fbb", "index.db")
	for _, args := range [][]string{
		{"migrate", "--no-deprecation-warning", db, filepath.Join(t.TempDir(), "out")},
		{"parity", "--no-deprecation-warning", db, db},
	} {
		t.Run(args[0], func(t *testing.T) {
			prevPercent := debug.SetGCPercent(100)
			defer debug.SetGCPercent(prevPercent)
			prevLimit := debug.SetMemoryLimit(math.MaxInt64)
			defer debug.SetMemoryLimit(prevLimit)
			_, stderr, code := runCLI(t, args...)
			require.Equal(t, exitOK, code, stderr)
			assert.Equal(t, 100, debug.SetGCPercent(100), "GC percent after the command")
			assert.Equal(t, int64(math.MaxInt64), debug.SetMemoryLimit(-1), "memory limit after the command (none)")
		})
	}
}
