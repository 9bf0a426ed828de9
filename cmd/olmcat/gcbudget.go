package main

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
)

// The garbage collector budgets of the commands whose live heap is small
// next to what they allocate. Each applies only where the user has not set
// the matching GOGC or GOMEMLIMIT, and each returns the function that puts
// the previous setting back when the command ends, so commands run in one
// process (tests, a future library caller) do not inherit it.
const (
	// A plain migrate is a batch run whose live heap is the reader's
	// rowid index plus the few packages being converted, while it
	// allocates the catalog's bytes several times over: collecting at a
	// higher GOGC saves most of the collector's CPU, and the soft limit
	// keeps the heap within a fixed budget however large the catalog. The
	// runtime's GC CPU limiter bounds the cost should the live heap ever
	// approach the limit.
	migrateGCPercent   = 300
	migrateMemoryLimit = 56 << 20

	// serve <dir> keeps the collector's headroom over the live heap near
	// serveHeapHeadroom: GOGC is the headroom over what is live, at most
	// the default 100 (a small catalog, whose live heap is under the
	// headroom, pays nothing) and at least serveMinGCPercent. While a
	// catalog directory loads, the live heap is the growing index and the
	// few packages in flight, and GOGC follows it (gcHeadroom); once
	// loaded, it is set once from what the server keeps, so a server's
	// headroom grows with its live heap (e.g. its manifest cache) rather
	// than staying under a fixed limit.
	serveHeapHeadroom = 6 << 20
	serveMinGCPercent = 25

	// During parity the two servers' indexes are most of what is live and
	// stay for the whole check, while every answer is garbage once
	// compared, and the answers in flight are a few packages' whatever
	// the catalog's size: the heap may grow by half of what is live
	// between cycles, but by no more than parityGCHeadroom, so that the
	// room for garbage stays the same as the indexes grow (see
	// gcHeadroom).
	parityGCPercent    = 50
	parityGCMinPercent = 10
	parityGCHeadroom   = 20 << 20
)

// migrateGCBudget applies migrate's budget, only for runs that hold
// nothing catalog-sized (no --verify, which serves both catalogs in
// process, and no --report-html, which keeps every package's graphs until
// the page is written).
func migrateGCBudget(f *migrateFlags) (restore func()) {
	if f.verify || f.reportHTML != "" {
		return func() {}
	}
	restoreGC := gcPercentUnlessSet(migrateGCPercent)
	restoreLimit := memoryLimitUnlessSet(migrateMemoryLimit)
	return func() { restoreLimit(); restoreGC() }
}

// serveHeadroom paces serve's collector by the live heap of a catalog
// directory's index.
var serveHeadroom = gcHeadroom{maxPercent: 100, minPercent: serveMinGCPercent, headroom: serveHeapHeadroom}

// loadGCBudget keeps serve's headroom while a catalog directory loads.
func loadGCBudget() (restore func()) { return serveHeadroom.start() }

// servingGCBudget sets serve's headroom once from what a loaded catalog
// directory keeps live.
func servingGCBudget() (restore func()) {
	return gcPercentUnlessSet(serveHeadroom.percent(liveHeap()))
}

// liveHeap is the heap the last collection marked live (0 before the
// first).
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: liveHeapMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// parityGCBudget paces parity's collector by its live heap.
func parityGCBudget() (restore func()) {
	return gcHeadroom{maxPercent: parityGCPercent, minPercent: parityGCMinPercent, headroom: parityGCHeadroom}.start()
}

// gcPercentUnlessSet sets the collector's target unless GOGC is set.
func gcPercentUnlessSet(percent int) (restore func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	prev := debug.SetGCPercent(percent)
	return func() { debug.SetGCPercent(prev) }
}

// memoryLimitUnlessSet sets a soft memory limit unless GOMEMLIMIT is set.
func memoryLimitUnlessSet(limit int64) (restore func()) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return func() {}
	}
	prev := debug.SetMemoryLimit(limit)
	return func() { debug.SetMemoryLimit(prev) }
}
