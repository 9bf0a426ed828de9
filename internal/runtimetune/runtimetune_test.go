package runtimetune

import (
	"context"
	"math"
	"runtime/debug"
	"runtime/metrics"
	"testing"

	"github.com/stretchr/testify/assert"
)

// settings returns the collector's target and soft memory limit without
// changing them.
func settings(t *testing.T) (percent int, limit int64) {
	t.Helper()
	percent = debug.SetGCPercent(-1)
	debug.SetGCPercent(percent) // SetGCPercent(-1) turned the collector off
	return percent, debug.SetMemoryLimit(-1)
}

// defaults sets the runtime's defaults (GOGC 100, no limit) for the test
// and puts back what was set before when it ends.
func defaults(t *testing.T) {
	t.Helper()
	prevPercent := debug.SetGCPercent(100)
	prevLimit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(prevPercent); debug.SetMemoryLimit(prevLimit) })
}

// TestBudgetsAreRestored: a budget entered through a Tuner applies until
// the Tuner's Restore, a user's GOGC/GOMEMLIMIT keeps it away, and
// without a Tuner in the context nothing changes.
func TestBudgetsAreRestored(t *testing.T) {
	tests := []struct {
		name        string
		env         map[string]string
		budgets     []Budget
		noTuner     bool
		wantPercent int
		wantLimit   int64
	}{
		{name: "migrate", budgets: []Budget{Migrate}, wantPercent: 300, wantLimit: 56 << 20},
		{name: "migrate with GOGC and GOMEMLIMIT", env: map[string]string{"GOGC": "100", "GOMEMLIMIT": "1GiB"}, budgets: []Budget{Migrate}, wantPercent: 100, wantLimit: math.MaxInt64},
		{name: "migrate with GOGC", env: map[string]string{"GOGC": "100"}, budgets: []Budget{Migrate}, wantPercent: 100, wantLimit: 56 << 20},
		{name: "serve <dir>", budgets: []Budget{ServeDeclcfg}, wantPercent: 50, wantLimit: math.MaxInt64},
		{name: "serve <dir> with GOGC", env: map[string]string{"GOGC": "100"}, budgets: []Budget{ServeDeclcfg}, wantPercent: 100, wantLimit: math.MaxInt64},
		{name: "verify templates", budgets: []Budget{VerifyTemplates}, wantPercent: 50, wantLimit: math.MaxInt64},
		{name: "no budget", budgets: []Budget{{}}, wantPercent: 100, wantLimit: math.MaxInt64},
		{name: "two budgets", budgets: []Budget{Migrate, VerifyTemplates}, wantPercent: 50, wantLimit: 56 << 20},
		{name: "no tuner", budgets: []Budget{Migrate}, noTuner: true, wantPercent: 100, wantLimit: math.MaxInt64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			defaults(t)
			var tuner Tuner
			ctx := context.Background()
			if !tt.noTuner {
				ctx = NewContext(ctx, &tuner)
			}
			for _, b := range tt.budgets {
				Enter(ctx, b)
			}
			percent, limit := settings(t)
			assert.Equal(t, tt.wantPercent, percent, "GC percent during the command")
			assert.Equal(t, tt.wantLimit, limit, "memory limit during the command")
			tuner.Restore()
			percent, limit = settings(t)
			assert.Equal(t, 100, percent, "GC percent after the command")
			assert.Equal(t, int64(math.MaxInt64), limit, "memory limit after the command (none)")
		})
	}
}

// forcedGCs is the number of collections the program forced so far
// (debug.FreeOSMemory forces one).
func forcedGCs(t *testing.T) uint64 {
	t.Helper()
	s := []metrics.Sample{{Name: "/gc/cycles/forced:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestReleaseLoadPeakOnlyWithATuner: a library's load returns its peak
// to the OS only when the program asked for it.
func TestReleaseLoadPeakOnlyWithATuner(t *testing.T) {
	before := forcedGCs(t)
	ReleaseLoadPeak(context.Background())
	assert.Equal(t, before, forcedGCs(t), "without a tuner")
	ReleaseLoadPeak(NewContext(context.Background(), &Tuner{}))
	assert.Equal(t, before+1, forcedGCs(t), "with a tuner")
}
