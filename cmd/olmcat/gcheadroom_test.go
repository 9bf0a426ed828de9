package main

import (
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// The collector's target is half the live heap while that is small, and
// never more than the headroom above it as the live heap grows, down to
// the floor.
func TestGCHeadroomPercent(t *testing.T) {
	h := gcHeadroom{maxPercent: 50, minPercent: 10, headroom: 24 << 20}
	tests := []struct {
		live uint64
		want int
	}{
		{live: 0, want: 50},
		{live: 10 << 20, want: 50},
		{live: 48 << 20, want: 50},
		{live: 96 << 20, want: 25},
		{live: 120 << 20, want: 20},
		{live: 240 << 20, want: 10},
		{live: 4 << 30, want: 10},
	}
	for _, tt := range tests {
		got := h.percent(tt.live)
		if got != tt.want {
			t.Errorf("percent(%d MiB) = %d, want %d", tt.live>>20, got, tt.want)
		}
		if room := tt.live * uint64(got) / 100; got > h.minPercent && room > h.headroom {
			t.Errorf("live %d MiB: %d MiB of room above the headroom", tt.live>>20, room>>20)
		}
	}
}

// The pacing follows the live heap while the command runs and puts the
// previous target back when it ends; GOGC keeps it away.
func TestGCHeadroomStartAndRestore(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	// A headroom far below any live heap: the target falls to the floor.
	restore := gcHeadroom{maxPercent: 50, minPercent: 7, headroom: 1}.start()
	deadline := time.Now().Add(5 * time.Second)
	for gcPercent() != 7 && time.Now().Before(deadline) {
		time.Sleep(gcHeadroomPoll)
	}
	if got := gcPercent(); got != 7 {
		t.Errorf("GC percent while paced = %d, want the floor 7", got)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC percent after the command = %d, want 100", got)
	}

	t.Setenv("GOGC", "80")
	restore = gcHeadroom{maxPercent: 50, minPercent: 7, headroom: 1}.start()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC percent with GOGC set = %d, want it left alone (100)", got)
	}
	restore()
}

// gcPercent reads the collector's target without changing it.
func gcPercent() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}
