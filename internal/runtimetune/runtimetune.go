// Package runtimetune owns every hand-tuned Go runtime setting of olmcat:
// the garbage collector budgets of the commands whose live heap is small
// next to what they allocate, and returning a catalog load's peak to the
// operating system. Each setting is here with the benchmark that shows
// it; the project keeps a hand-tuned setting only where a benchmark shows
// it buys at least 20%.
//
// Libraries never tune the runtime themselves. The code of a phase
// declares the budget it runs under (Enter) or that a memory peak has
// just ended (ReleaseLoadPeak), and both do nothing unless the program
// put a Tuner in the context: the CLI does, in one spot, for every
// command it runs, and undoes every setting when the command ends, so
// that commands run in one process (tests) do not inherit them. A
// library caller gets the runtime as its program set it.
package runtimetune

import (
	"context"
	"os"
	"runtime/debug"
	"sync"
)

// Budget is the collector budget a phase of a command runs under, from
// the moment it is entered until the command ends. A zero field leaves
// that setting as it is; a setting whose environment variable the user
// set (GOGC, GOMEMLIMIT) is left to the user.
type Budget struct {
	// GCPercent is the collector's target (GOGC).
	GCPercent int
	// MemoryLimit is the soft memory limit in bytes (GOMEMLIMIT).
	MemoryLimit int64
}

// The budgets of the commands. BenchmarkGCBudget (cmd/olmcat) runs the
// real binary, as a whole process, on the 10,000-bundle benchmark index
// of scripts/gen-bench-db.sh and its migration, each command with its
// budget and with the environment's GOGC instead, and reports peak RSS
// and CPU.
var (
	// Migrate is a plain migrate's budget (not --verify, which serves
	// both catalogs in process, nor --report-html, which keeps every
	// package's graphs until the page is written): a batch run whose live
	// heap is the reader's rowid index plus the few packages being
	// converted, while it allocates the catalog's bytes several times
	// over. Collecting at a higher GOGC saves most of the collector's
	// CPU, and the soft limit keeps the heap within a fixed budget however
	// large the catalog; the runtime's GC CPU limiter bounds the cost
	// should the live heap ever approach the limit (BenchmarkGCBudget,
	// migrate/budget against migrate/default).
	Migrate = Budget{GCPercent: 300, MemoryLimit: 56 << 20}

	// ServeDeclcfg is serve's budget for a declarative config catalog,
	// for the load and while serving: the server holds its index for as
	// long as it serves, while loading and answering allocate far more,
	// all garbage at once. Collecting when the heap has grown by half of
	// what is live keeps the peak near what the index needs
	// (BenchmarkGCBudget, serve-dir/budget against serve-dir/gogc-100;
	// README "Benchmarks": at the default GOGC the peak is 8% higher at
	// 10,000 bundles and 20% higher at 40,000).
	ServeDeclcfg = Budget{GCPercent: 50}

	// VerifyTemplates is the budget of the parity check that ends
	// migrate --to-template --verify: the two servers' indexes are most
	// of what is live and stay for the whole check, while every answer
	// is garbage once compared. Collecting when the heap has grown by
	// half of what is live rather than all of it keeps the run's peak
	// flat in the catalog's size (scripts/bench-template.sh: 1.4x from
	// 250 to 10,000 images, 1.5x at the default GOGC). The parity command
	// itself runs at the runtime's default: there the budget bought less
	// peak than it cost CPU (BenchmarkGCBudget, parity/gogc-50 against
	// parity/budget).
	VerifyTemplates = Budget{GCPercent: 50}
)

// Tuner applies the budgets the phases of one command enter and undoes
// them all when the command ends. The zero value is ready to use.
type Tuner struct {
	mu       sync.Mutex
	restores []func()
}

type tunerKey struct{}

// NewContext returns ctx carrying t: Enter and ReleaseLoadPeak under it
// tune the runtime through t.
func NewContext(ctx context.Context, t *Tuner) context.Context {
	return context.WithValue(ctx, tunerKey{}, t)
}

func fromContext(ctx context.Context) *Tuner {
	t, _ := ctx.Value(tunerKey{}).(*Tuner)
	return t
}

// Enter applies b through the Tuner in ctx until that Tuner's Restore;
// without a Tuner it does nothing.
func Enter(ctx context.Context, b Budget) {
	if t := fromContext(ctx); t != nil {
		t.apply(b)
	}
}

func (t *Tuner) apply(b Budget) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, set := os.LookupEnv("GOGC"); b.GCPercent != 0 && !set {
		prev := debug.SetGCPercent(b.GCPercent)
		t.restores = append(t.restores, func() { debug.SetGCPercent(prev) })
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); b.MemoryLimit != 0 && !set {
		prev := debug.SetMemoryLimit(b.MemoryLimit)
		t.restores = append(t.restores, func() { debug.SetMemoryLimit(prev) })
	}
}

// Restore puts back, newest first, every setting the budgets entered
// through t changed.
func (t *Tuner) Restore() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := len(t.restores) - 1; i >= 0; i-- {
		t.restores[i]()
	}
	t.restores = nil
}

// ReleaseLoadPeak, called when a load that peaks far above what it keeps
// has ended, returns the freed heap to the operating system at once when
// ctx carries a Tuner. A declarative config catalog's load or cache
// restore peaks above what its index keeps (the decoded packages, the
// snapshot, the builder's maps), and the runtime would hold on to that
// peak for minutes: a server's resident size should be what it serves
// (serving RSS 905 MB -> 285 MB on the 10,000-bundle catalog when it was
// introduced; BenchmarkReleaseLoadPeak in registry/declcfgquery: the
// freed heap the process keeps after a load, with and without).
func ReleaseLoadPeak(ctx context.Context) {
	if fromContext(ctx) != nil {
		debug.FreeOSMemory()
	}
}
