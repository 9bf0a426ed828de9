package main

import (
	"os"
	"runtime/debug"
)

// Migrate's collector budget. A plain migrate is a batch run whose live
// heap is small and flat (the reader's rowid index plus the few packages
// being converted) while it allocates the catalog's bytes several times
// over: collecting at a higher GOGC saves most of the collector's CPU,
// and the soft memory limit keeps the heap within a fixed budget however
// large the catalog. The runtime's GC CPU limiter bounds the cost should
// the live heap ever approach the limit.
const (
	batchGCPercent   = 300
	batchMemoryLimit = 56 << 20
)

// tuneBatchGC applies migrate's collector budget unless the user set GOGC
// or GOMEMLIMIT, and only for runs that hold nothing catalog-sized (no
// --verify, which serves both catalogs in process, and no --report-html,
// which keeps every package's graphs until the page is written).
func tuneBatchGC(f *migrateFlags) {
	if f.verify || f.reportHTML != "" {
		return
	}
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(batchGCPercent)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(batchMemoryLimit)
	}
}

// serveLoadMemoryLimit is serve's soft memory limit while it loads a
// catalog directory. The load decodes the whole catalog once while its
// live heap is only the growing index and the few packages in flight: the
// limit keeps what the collector lets pile up between cycles within a
// fixed budget however large the catalog; a small catalog's heap stays
// under it and pays nothing.
const serveLoadMemoryLimit = 48 << 20

// loadGCBudget applies serve's load limit unless the user set GOMEMLIMIT,
// and returns the function that restores the previous limit: a
// long-running server keeps no artificial limit.
func loadGCBudget() (restore func()) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return func() {}
	}
	prev := debug.SetMemoryLimit(serveLoadMemoryLimit)
	return func() { debug.SetMemoryLimit(prev) }
}
