package main

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestLoadGCBudget(t *testing.T) {
	tests := []struct {
		name       string
		gomemlimit string // "" leaves GOMEMLIMIT unset
		during     int64
	}{
		{name: "limit while loading", during: serveLoadMemoryLimit},
		{name: "GOMEMLIMIT wins", gomemlimit: "1GiB", during: math.MaxInt64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.gomemlimit != "" {
				t.Setenv("GOMEMLIMIT", tt.gomemlimit)
			}
			prev := debug.SetMemoryLimit(math.MaxInt64)
			defer debug.SetMemoryLimit(prev)
			restore := loadGCBudget()
			if got := debug.SetMemoryLimit(-1); got != tt.during {
				t.Errorf("limit while loading = %d, want %d", got, tt.during)
			}
			restore()
			if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
				t.Errorf("limit after loading = %d, want none (%d)", got, int64(math.MaxInt64))
			}
		})
	}
}
