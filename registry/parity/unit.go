package parity

import (
	"context"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/operator-catalog/olmcat/internal/manifest"
)

// unitResult is what checking one package found, to be recorded in
// package order.
type unitResult struct {
	calls     []call
	diffs     [][]Diff // per call
	lbDiffs   []Diff   // the package's share of ListBundles
	graph     []GraphDiff
	channels  int   // channels whose graphs were compared
	firstChan *ckey // the package's first channel, if any
}

// packages checks every package, at most unitWindow at once, and
// records each package's result in name order.
func (r *checkRun) packages(ctx context.Context, pkgs []string) error {
	window := make(chan struct{}, unitWindow)
	done := make([]chan *unitResult, len(pkgs))
	for i := range done {
		done[i] = make(chan *unitResult, 1)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		for i := range pkgs {
			select {
			case u := <-done[i]:
				r.emit(pkgs[i], u)
			case <-gctx.Done():
				return gctx.Err()
			}
			<-window
			if r.o.progress != nil {
				r.o.progress.Add(1)
			}
		}
		return nil
	})
feed:
	for i, pkg := range pkgs {
		select {
		case window <- struct{}{}:
		case <-gctx.Done():
			break feed
		}
		g.Go(func() error {
			u, err := r.unit(gctx, pkg)
			if err != nil {
				return err
			}
			done[i] <- u
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}

// emit records one package's result.
func (r *checkRun) emit(pkg string, u *unitResult) {
	for i, c := range u.calls {
		r.record(c, u.diffs[i])
	}
	r.t.diffs(u.lbDiffs)
	r.t.graph(u.graph, u.channels)
	r.t.packageDone(pkg, u)
	r.mu.Lock()
	defer r.mu.Unlock()
	if w := worst(u.lbDiffs); w != "" && r.lbWorst != Loss {
		r.lbWorst = w
	}
	if r.firstCh == nil && u.firstChan != nil {
		r.firstCh = u.firstChan
	}
}

// unit checks one package: GetPackage, its share of ListBundles and of
// the upgrade graph, then every call about its bundles, channels and
// names, each compared as it comes, and last GetDefaultBundleThatProvides
// for the GVKs its default channel heads provide (earlyProviders).
func (r *checkRun) unit(ctx context.Context, pkg string) (*unitResult, error) {
	cat := r.cat.withCanon(&canonCache{})
	idx := [2]*sideIndex{r.spills[0].index(pkg), r.spills[1].index(pkg)}
	gp := call{rpc: RPCGetPackage, pkg: pkg}
	a, err := r.both(ctx, gp)
	if err != nil {
		return nil, err
	}
	for s := range 2 {
		if p := a[s].pkg; p != nil && a[s].err == nil {
			cat.setPackage(s, pkg, p, idx[s])
		}
	}
	u := &unitResult{calls: []call{gp}, diffs: [][]Diff{compare(cat, gp, a)}}
	if !r.listBundlesFailed {
		d := &differ{c: call{rpc: RPCListBundles}, cat: cat}
		d.bundleLists(idx[0].bundles, idx[1].bundles)
		u.lbDiffs = d.out
	}
	u.graph, u.channels = compareGraphs(cat, idx)
	calls, first := r.unitCalls(cat, pkg, idx)
	u.firstChan = first
	diffs, err := r.makeAll(ctx, cat, calls)
	if err != nil {
		return nil, err
	}
	u.calls, u.diffs = append(u.calls, calls...), append(u.diffs, diffs...)
	r.earlyProviders(ctx, cat, pkg, idx)
	return u, nil
}

// makeAll makes and compares calls, at most o.concurrency at once across
// the whole check, and returns their differences in call order. The
// first call to fail stops the rest and is the error.
func (r *checkRun) makeAll(ctx context.Context, cat *catalog, calls []call) ([][]Diff, error) {
	out := make([][]Diff, len(calls))
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
feed:
	for i, c := range calls {
		select {
		case r.sem <- struct{}{}:
		case <-cctx.Done():
			break feed
		}
		wg.Add(1)
		r.workers.run(func() {
			defer wg.Done()
			defer func() { <-r.sem }()
			a, err := r.both(cctx, c)
			if err != nil {
				errOnce.Do(func() { firstErr = err; cancel() })
				return
			}
			out[i] = compare(cat, c, a)
		})
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return out, ctx.Err()
}

// unitCalls enumerates the calls about one package: GetBundle per
// channel entry, GetBundleForChannel per channel, GetBundleThatReplaces
// per channel and name in it, GetChannelEntriesThatReplace per name (once
// in the whole check), in a stable order; and the package's first
// channel.
func (r *checkRun) unitCalls(cat *catalog, pkg string, idx [2]*sideIndex) ([]call, *ckey) {
	channels := map[ckey]bool{}
	bundles := map[bkey]bool{}
	names := map[string]bool{}
	// names per channel for GetBundleThatReplaces: bundles, replaces, skips.
	inChannel := map[ckey]map[string]bool{}
	note := func(ck ckey, name string) {
		if name == "" {
			return
		}
		names[name] = true
		if inChannel[ck] == nil {
			inChannel[ck] = map[string]bool{}
		}
		inChannel[ck][name] = true
	}
	for s := range 2 {
		if p := cat.pkg(s, pkg); p != nil {
			for _, ch := range p.channels {
				channels[ckey{p.name, ch.name}] = true
			}
		}
		for k, b := range idx[s].bundles {
			ck := ckey{k.pkg, k.channel}
			channels[ck] = true
			bundles[k] = true
			note(ck, k.name)
			note(ck, b.GetReplaces())
			for _, sk := range b.GetSkips() {
				note(ck, sk)
			}
		}
	}
	var out []call
	for _, k := range sortedKeys(bundles, bkeyLess) {
		out = append(out, call{rpc: RPCGetBundle, pkg: k.pkg, channel: k.channel, name: k.name})
	}
	chs := sortedKeys(channels, ckeyLess)
	for _, ck := range chs {
		out = append(out, call{rpc: RPCGetBundleForChannel, pkg: ck.pkg, channel: ck.channel})
	}
	for _, n := range sortedKeys(names, strLess) {
		if r.claim(n) {
			out = append(out, call{rpc: RPCGetChannelEntriesThatReplace, name: n})
		}
	}
	for _, ck := range chs {
		for _, n := range sortedKeys(inChannel[ck], strLess) {
			out = append(out, call{rpc: RPCGetBundleThatReplaces, pkg: ck.pkg, channel: ck.channel, name: n})
		}
	}
	if len(chs) == 0 {
		return out, nil
	}
	return out, &chs[0]
}

// claim reports whether name is not claimed yet, and claims it: a name
// replaced or skipped in several packages is queried once.
func (r *checkRun) claim(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.claimed[name] {
		return false
	}
	r.claimed[strings.Clone(name)] = true // not the answer it came in
	return true
}

// catalogWideBatch is how many catalog-wide calls are made and compared
// before their differences are recorded: the calls and answers in
// memory stay a batch's, not one per GVK of the catalog.
const catalogWideBatch = 256

// catalogWide makes the calls that span packages, once every package
// is known: the three GVK provider RPCs per provided or required GVK, then
// the not-found probes, in batches recorded in call order. The
// GetDefaultBundleThatProvides calls a package's turn made already
// (earlyProviders) are recorded in their place, not made again.
func (r *checkRun) catalogWide(ctx context.Context) error {
	gvks := map[manifest.GVK]bool{}
	for _, sp := range r.spills {
		for g := range sp.gvks {
			gvks[g] = true
		}
	}
	cat := r.cat.withCanon(&canonCache{})
	var batch []call
	flush := func() error {
		diffs, err := r.makeRest(ctx, cat, batch)
		if err != nil {
			return err
		}
		for i, c := range batch {
			r.record(c, diffs[i])
		}
		batch = batch[:0]
		cat = r.cat.withCanon(&canonCache{})
		return nil
	}
	for _, g := range sortedKeys(gvks, gvkLess) {
		for _, rpc := range []string{RPCGetChannelEntriesThatProvide, RPCGetLatestChannelEntriesThatProvide, RPCGetDefaultBundleThatProvides} {
			batch = append(batch, call{rpc: rpc, gvk: g})
		}
		if len(batch) >= catalogWideBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	batch = append(batch, call{rpc: RPCGetPackage, pkg: probePackage, probe: true})
	batch = append(batch, probes(r.firstCh)...)
	if err := flush(); err != nil {
		return err
	}
	if r.o.progress != nil {
		r.o.progress.Add(1)
	}
	return nil
}

// probes are the not-found calls, whose error versus answer must agree:
// unknown package, channel and bundle, also inside first (the catalog's
// first channel, if any).
func probes(first *ckey) []call {
	out := []call{
		{rpc: RPCGetBundle, pkg: probePackage, channel: probeChannel, name: probeBundle, probe: true},
		{rpc: RPCGetBundleForChannel, pkg: probePackage, channel: probeChannel, probe: true},
		{rpc: RPCGetChannelEntriesThatReplace, name: probeBundle, probe: true},
		{rpc: RPCGetBundleThatReplaces, pkg: probePackage, channel: probeChannel, name: probeBundle, probe: true},
	}
	if first != nil {
		ck := *first
		out = append(out,
			call{rpc: RPCGetBundle, pkg: ck.pkg, channel: probeChannel, name: probeBundle, probe: true},
			call{rpc: RPCGetBundle, pkg: ck.pkg, channel: ck.channel, name: probeBundle, probe: true},
			call{rpc: RPCGetBundleForChannel, pkg: ck.pkg, channel: probeChannel, probe: true},
			call{rpc: RPCGetBundleThatReplaces, pkg: ck.pkg, channel: probeChannel, name: probeBundle, probe: true},
			call{rpc: RPCGetBundleThatReplaces, pkg: ck.pkg, channel: ck.channel, name: probeBundle, probe: true},
		)
	}
	for _, rpc := range []string{RPCGetChannelEntriesThatProvide, RPCGetLatestChannelEntriesThatProvide, RPCGetDefaultBundleThatProvides} {
		out = append(out, call{rpc: rpc, gvk: probeGVK, probe: true})
	}
	return out
}
