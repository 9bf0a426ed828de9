package main

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// gcHeadroom paces the collector by the live heap: the heap may grow by
// maxPercent of what is live between cycles, but never by more than
// headroom bytes. GOGC alone lets the garbage between cycles grow with
// the live heap; a command whose live heap is an index as large as the
// catalog while its garbage comes from a bounded window of work (parity:
// a few packages' answers at a time) needs the same room for garbage
// whatever the catalog's size, so past maxPercent of headroom the
// percentage falls as the live heap grows. It never falls below
// minPercent, which bounds the collector's work per byte allocated
// should a catalog's index be very large.
type gcHeadroom struct {
	maxPercent, minPercent int
	headroom               uint64
}

// percent is the collector's target for a live heap of live bytes.
func (h gcHeadroom) percent(live uint64) int {
	if live == 0 {
		return h.maxPercent
	}
	p := int(min(h.headroom*100/live, uint64(h.maxPercent)))
	return max(p, h.minPercent)
}

// liveHeapMetric is the heap the last cycle marked live, as the
// runtime's pacer counts it.
const liveHeapMetric = "/gc/heap/live:bytes"

// gcHeadroomPoll is how often the live heap is looked at: a few times per
// collection cycle of a busy check, and a read of one metric is cheap.
const gcHeadroomPoll = 20 * time.Millisecond

// start applies the pacing until restore is called, unless GOGC is set;
// restore puts the previous target back.
func (h gcHeadroom) start() (restore func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	current := h.maxPercent
	prev := debug.SetGCPercent(current)
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		sample := []metrics.Sample{{Name: liveHeapMetric}}
		tick := time.NewTicker(gcHeadroomPoll)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() != metrics.KindUint64 {
				continue
			}
			if p := h.percent(sample[0].Value.Uint64()); p != current {
				current = p
				debug.SetGCPercent(p)
			}
		}
	}()
	return func() {
		close(stop)
		<-stopped
		debug.SetGCPercent(prev)
	}
}
