package main

import (
	"math"
	"runtime/debug"
	"testing"
	"time"
)

func TestServeHeadroom(t *testing.T) {
	tests := []struct {
		live uint64
		want int
	}{
		{live: 0, want: 100},                     // before the first collection
		{live: 1 << 20, want: 100},               // a small catalog keeps the default
		{live: serveHeapHeadroom, want: 100},     // up to the headroom
		{live: 2 * serveHeapHeadroom, want: 50},  // then the headroom over what is live
		{live: 4 * serveHeapHeadroom, want: 25},  // down to the floor
		{live: 1 << 40, want: serveMinGCPercent}, // and never below it
	}
	for _, tt := range tests {
		if got := serveHeadroom.percent(tt.live); got != tt.want {
			t.Errorf("serveHeadroom.percent(%d) = %d, want %d", tt.live, got, tt.want)
		}
	}
}

// TestServeGCBudgets: serve's budgets follow the live heap, are undone
// when they end, and GOGC keeps them away.
func TestServeGCBudgets(t *testing.T) {
	for _, gogc := range []string{"", "100"} {
		t.Run("GOGC="+gogc, func(t *testing.T) {
			if gogc != "" {
				t.Setenv("GOGC", gogc)
			}
			prev := debug.SetGCPercent(77)
			defer debug.SetGCPercent(prev)
			restore := loadGCBudget()
			time.Sleep(3 * gcHeadroomPoll)
			restore()
			if got := debug.SetGCPercent(77); got != 77 {
				t.Errorf("GC percent after loading = %d, want 77", got)
			}
			before := serveHeadroom.percent(liveHeap())
			restore = servingGCBudget()
			got := debug.SetGCPercent(-1)
			debug.SetGCPercent(got) // SetGCPercent(-1) turned the collector off
			after := serveHeadroom.percent(liveHeap())
			switch {
			case gogc != "" && got != 77:
				t.Errorf("GC percent while serving with GOGC set = %d, want 77 (untouched)", got)
			case gogc == "" && got != before && got != after:
				t.Errorf("GC percent while serving = %d, want serveHeadroom.percent of the live heap (%d)", got, before)
			}
			restore()
			if got := debug.SetGCPercent(77); got != 77 {
				t.Errorf("GC percent after serving = %d, want 77", got)
			}
		})
	}
}

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
			if got := debug.SetGCPercent(-1); got != tt.wantPercent {
				t.Errorf("GC percent during the command = %d, want %d", got, tt.wantPercent)
			}
			debug.SetGCPercent(tt.wantPercent) // SetGCPercent(-1) turned the collector off
			if got := debug.SetMemoryLimit(-1); got != tt.wantLimit {
				t.Errorf("memory limit during the command = %d, want %d", got, tt.wantLimit)
			}
			restore()
			if got := debug.SetGCPercent(100); got != 100 {
				t.Errorf("GC percent after the command = %d, want 100", got)
			}
			if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
				t.Errorf("memory limit after the command = %d, want none", got)
			}
		})
	}
}
