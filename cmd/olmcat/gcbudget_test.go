package main

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestGCBudgetsAreRestored: every command's budget is undone when the
// command ends, and a user's GOGC/GOMEMLIMIT keeps the budget away.
func TestGCBudgetsAreRestored(t *testing.T) {
	tests := []struct {
		name        string
		env         map[string]string
		budget      func() func()
		wantPercent int
		wantLimit   int64
	}{
		{name: "migrate", budget: func() func() { return migrateGCBudget(&migrateFlags{}) }, wantPercent: migrateGCPercent, wantLimit: migrateMemoryLimit},
		{name: "migrate --verify", budget: func() func() { return migrateGCBudget(&migrateFlags{verify: true}) }, wantPercent: 100, wantLimit: math.MaxInt64},
		{name: "migrate with GOGC and GOMEMLIMIT", env: map[string]string{"GOGC": "100", "GOMEMLIMIT": "1GiB"}, budget: func() func() { return migrateGCBudget(&migrateFlags{}) }, wantPercent: 100, wantLimit: math.MaxInt64},
		{name: "serve <dir>", budget: serveGCBudget, wantPercent: serveGCPercent, wantLimit: math.MaxInt64},
		{name: "serve <dir> with GOGC", env: map[string]string{"GOGC": "100"}, budget: serveGCBudget, wantPercent: 100, wantLimit: math.MaxInt64},
		{name: "parity", budget: parityGCBudget, wantPercent: parityGCPercent, wantLimit: math.MaxInt64},
		{name: "parity with GOGC", env: map[string]string{"GOGC": "100"}, budget: parityGCBudget, wantPercent: 100, wantLimit: math.MaxInt64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			prevPercent := debug.SetGCPercent(100)
			defer debug.SetGCPercent(prevPercent)
			prevLimit := debug.SetMemoryLimit(math.MaxInt64)
			defer debug.SetMemoryLimit(prevLimit)
			restore := tt.budget()
			assert.Equal(t, tt.wantPercent, debug.SetGCPercent(-1), "GC percent during the command")
			debug.SetGCPercent(tt.wantPercent) // SetGCPercent(-1) turned the collector off
			assert.Equal(t, tt.wantLimit, debug.SetMemoryLimit(-1), "memory limit during the command")
			restore()
			assert.Equal(t, 100, debug.SetGCPercent(100), "GC percent after the command")
			assert.Equal(t, int64(math.MaxInt64), debug.SetMemoryLimit(-1), "memory limit after the command (none)")
		})
	}
}
