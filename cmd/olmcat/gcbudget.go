package main

import (
	"os"
	"runtime/debug"
)

// The garbage collector budgets of the commands whose live heap is small
// next to what they allocate, each set once when the command starts.
// Each applies only where the user has not set the matching GOGC or
// GOMEMLIMIT, and each returns the function that puts the previous
// setting back when the command ends, so commands run in one process
// (tests, a future library caller) do not inherit it.
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

	// serve <dir> holds its index for as long as it serves while loading
	// and answering allocate far more, all garbage at once: collecting
	// when the heap has grown by half of what is live keeps the peak near
	// what the index needs (BenchmarkGCBudget).
	serveGCPercent = 50

	// During parity the two servers' indexes are most of what is live and
	// stay for the whole check, while every answer is garbage once
	// compared: collecting when the heap has grown by half of what is live
	// rather than all of it keeps the peak lower (BenchmarkGCBudget).
	parityGCPercent = 50
)

// serveGCBudget applies serve's budget to a catalog directory, for the
// load and while serving.
func serveGCBudget() (restore func()) { return gcPercentUnlessSet(serveGCPercent) }

// parityGCBudget applies parity's budget.
func parityGCBudget() (restore func()) { return gcPercentUnlessSet(parityGCPercent) }

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
