package parity

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/internal/scratchfile"
	"github.com/operator-catalog/olmcat/registry/api"
)

// unitWindow bounds the packages in flight: checked, or checked and
// waiting for an earlier package to be reported.
const unitWindow = 4

// checkRun is one check in progress.
type checkRun struct {
	sides  [2]*side
	spills [2]*spill
	cat    *catalog
	t      *tally
	o      options
	sem    chan struct{} // one token per call in flight
	// workers make the calls of makeAll; as many as sem has tokens.
	workers *workers

	// Set by lists, read-only afterwards.
	listBundlesFailed bool // a side refused ListBundles: its share per package is not compared

	mu      sync.Mutex      // guards the fields below
	claimed map[string]bool // the names GetChannelEntriesThatReplace was asked about
	// providerClaimed are the GVKs a package's turn asked
	// GetDefaultBundleThatProvides about, early where the differences of
	// those calls it kept are in earlyFile (see earlyProviders and
	// keepEarly), until catalogWide records them.
	providerClaimed map[manifest.GVK]bool
	early           map[manifest.GVK]spillSpan
	earlyFile       *scratchfile.File
	lbWorst         Class // the worst class of ListBundles' differences so far
	firstCh         *ckey // the first channel of the catalog, for the probes
}

// run makes every call on both sides and aggregates the result as it
// goes: the lists first (each side's ListBundles spilled to disk), then
// package by package in name order (GetPackage, the package's share of
// ListBundles and of the upgrade graph, every call about its bundles,
// channels and names), then the catalog-wide calls (GVK providers and
// the not-found probes). Only a few packages' answers are in memory at
// any time.
func run(ctx context.Context, sides [2]*side, backends [2]input.Kind, o options) (res *Result, err error) {
	r := &checkRun{sides: sides, o: o, sem: make(chan struct{}, o.concurrency), claimed: map[string]bool{},
		providerClaimed: map[manifest.GVK]bool{}, early: map[manifest.GVK]spillSpan{}}
	defer func() {
		for _, sp := range r.spills {
			if sp != nil {
				err = errors.Join(err, sp.close())
			}
		}
		if r.earlyFile != nil {
			err = errors.Join(err, r.earlyFile.Close())
		}
		if err != nil {
			res = nil
		}
	}()
	r.workers = newWorkers(o.concurrency)
	defer r.workers.stop()
	for s := range 2 {
		if r.spills[s], err = newSpill(""); err != nil {
			return nil, err
		}
	}
	if r.earlyFile, err = scratchfile.New(""); err != nil {
		return nil, fmt.Errorf("spill early provider differences: %w", err)
	}
	r.cat = newCatalog(backends, [2]indexSource{r.spills[0], r.spills[1]})
	r.cat.remote = [2]bool{sides[0].kind == input.KindGRPC, sides[1].kind == input.KindGRPC}
	res = &Result{Mode: ModeRPC,
		Left:  SideInfo{Ref: sides[0].ref, Kind: sides[0].kind, Backend: backends[0]},
		Right: SideInfo{Ref: sides[1].ref, Kind: sides[1].kind, Backend: backends[1]},
	}
	r.t = newTally(res, RPCs, o.maxDiffs, o.reports)
	for _, rep := range o.reports {
		if err := rep.Begin(res.Left, res.Right); err != nil {
			return nil, fmt.Errorf("write report: %w", err)
		}
	}
	pkgs, err := r.lists(ctx)
	if err != nil {
		return nil, err
	}
	if o.progress != nil {
		o.progress.Start(len(pkgs) + 1)
		defer o.progress.Done()
	}
	if err := r.packages(ctx, pkgs); err != nil {
		return nil, err
	}
	if err := r.catalogWide(ctx); err != nil {
		return nil, err
	}
	r.t.call(RPCListBundles, r.lbWorst)
	r.t.finish()
	for _, sp := range r.spills {
		if err := sp.failed(); err != nil {
			return nil, err
		}
	}
	if r.t.err != nil {
		return nil, fmt.Errorf("write report: %w", r.t.err)
	}
	for _, rep := range o.reports {
		if err := rep.End(res); err != nil {
			return nil, fmt.Errorf("write report: %w", err)
		}
	}
	return res, nil
}

// both makes c on both sides.
func (r *checkRun) both(ctx context.Context, c call) ([2]answer, error) {
	var a [2]answer
	for i, s := range r.sides {
		var err error
		if a[i], err = invoke(ctx, s.client, c); err != nil {
			return a, fmt.Errorf("%s: %w", s.ref, err)
		}
	}
	return a, nil
}

// record counts a call and its differences.
func (r *checkRun) record(c call, diffs []Diff) {
	r.t.diffs(diffs)
	r.t.call(c.rpc, worst(diffs))
}

// lists makes ListPackages and ListBundles, compares the first and
// spills the second, and returns every package either side names.
func (r *checkRun) lists(ctx context.Context) ([]string, error) {
	lp := call{rpc: RPCListPackages}
	a, err := r.both(ctx, lp)
	if err != nil {
		return nil, err
	}
	r.record(lp, compare(r.cat, lp, a))
	var lb [2]answer
	var g errgroup.Group
	for s := range 2 {
		g.Go(func() error {
			var err error
			lb[s].err, err = streamBundles(ctx, r.sides[s], r.spills[s])
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if lb[0].err != nil || lb[1].err != nil {
		r.listBundlesFailed = true
		diffs := compare(r.cat, call{rpc: RPCListBundles}, lb)
		r.t.diffs(diffs)
		r.lbWorst = worst(diffs)
	}
	pkgs := map[string]bool{}
	for s := range 2 {
		for _, n := range a[s].names {
			pkgs[n] = true
		}
		for _, n := range r.spills[s].pkgs {
			pkgs[n] = true
		}
	}
	return sortedKeys(pkgs, strLess), nil
}

// streamBundles spills side's ListBundles answer. The first error is a
// transport or spill error; the second the catalog's error answer.
func streamBundles(ctx context.Context, sd *side, sp *spill) (answerErr, err error) {
	var spillErr error
	answerErr, err = listBundles(ctx, sd.client, func(b *api.Bundle) {
		if spillErr == nil {
			spillErr = sp.add(b)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sd.ref, err)
	}
	return answerErr, spillErr
}
