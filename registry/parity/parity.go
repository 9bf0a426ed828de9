package parity

import (
	"context"
	"fmt"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/operator-catalog/olmcat/registry/source"
)

// DefaultConcurrency is how many calls run at once by default.
const DefaultConcurrency = 8

// Progress receives the advance of a check: Start once the calls are
// enumerated, Add per finished call, Done at the end.
type Progress interface {
	Start(total int)
	Add(n int)
	Done()
}

// Option configures Check.
type Option func(*options)

type options struct {
	concurrency int
	progress    Progress
	kinds       [2]source.Kind
}

// WithKinds names the backend of each side: source.KindSQLite (a legacy
// sqlite server) or source.KindDeclcfg (a declarative config server).
// A grpc:// side must be named, since the rules that explain differences
// between the sqlite and the declarative config servers apply only
// between those two; a local side is detected, and "" keeps that.
func WithKinds(left, right source.Kind) Option {
	return func(o *options) { o.kinds = [2]source.Kind{left, right} }
}

// WithConcurrency sets how many calls (each made on both sides) run at
// once (DefaultConcurrency when unset or not positive).
func WithConcurrency(n int) Option { return func(o *options) { o.concurrency = n } }

// WithProgress reports the check's advance to p.
func WithProgress(p Progress) Option { return func(o *options) { o.progress = p } }

// Check compares what left and right serve over the api.Registry API,
// call by call, and classifies every difference. Each side is a sqlite
// index file, a declarative config directory or grpc://host:port.
//
// It returns an error only when a side cannot be opened or reached; data
// differences, losses included, are in the Result (see Result.OK).
func Check(ctx context.Context, left, right string, opts ...Option) (*Result, error) {
	o := options{concurrency: DefaultConcurrency}
	for _, opt := range opts {
		opt(&o)
	}
	if o.concurrency <= 0 {
		o.concurrency = DefaultConcurrency
	}

	var sides [2]*side
	defer func() {
		for _, s := range sides {
			if s != nil {
				_ = s.close()
			}
		}
	}()
	// Open both sides at once: loading a large catalog takes seconds.
	var g errgroup.Group
	for i, ref := range []string{left, right} {
		g.Go(func() error {
			s, err := openSide(ctx, ref)
			sides[i] = s
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	backends, err := backendKinds(sides, o.kinds)
	if err != nil {
		return nil, err
	}
	res, err := run(ctx, sides, backends, o)
	if err != nil {
		return nil, err
	}
	for i, s := range sides {
		sides[i] = nil
		if err := s.close(); err != nil {
			return nil, fmt.Errorf("close %s: %w", s.ref, err)
		}
	}
	return res, nil
}

// backendKinds returns the backend of each side: the detected kind of a
// local side, the given kind of a live server.
func backendKinds(sides [2]*side, given [2]source.Kind) ([2]source.Kind, error) {
	var out [2]source.Kind
	for i, s := range sides {
		g := given[i]
		if g != "" && g != source.KindSQLite && g != source.KindDeclcfg {
			return out, fmt.Errorf("side %s: kind %q: want %s or %s", s.ref, g, source.KindSQLite, source.KindDeclcfg)
		}
		switch {
		case s.kind != source.KindGRPC:
			if g != "" && g != s.kind {
				return out, fmt.Errorf("side %s is a %s catalog, not %s", s.ref, s.kind, g)
			}
			out[i] = s.kind
		case g == "":
			return out, fmt.Errorf("side %s is a live server: name its backend kind (%s or %s; olmcat parity --left-kind/--right-kind), since the sqlite vs declarative config rules apply only between those two", s.ref, source.KindSQLite, source.KindDeclcfg)
		default:
			out[i] = g
		}
	}
	return out, nil
}

// run makes every call on both sides and collects the result: first
// what the catalogs contain (the lists and every package), from which the
// other calls are derived, then those calls, compared as they come.
func run(ctx context.Context, sides [2]*side, backends [2]source.Kind, o options) (*Result, error) {
	r := &checkRun{
		sides: sides,
		cat: &catalog{
			kinds: backends,
			sides: [2]*sideIndex{newSideIndex(), newSideIndex()},
		},
		res: &Result{
			Left:  SideInfo{Ref: sides[0].ref, Kind: sides[0].kind, Backend: backends[0]},
			Right: SideInfo{Ref: sides[1].ref, Kind: sides[1].kind, Backend: backends[1]},
		},
		stats: map[string]*RPCStats{},
	}
	for _, rpc := range RPCs {
		r.stats[rpc] = &RPCStats{RPC: rpc}
	}
	first, err := r.contents(ctx, o)
	if err != nil {
		return nil, err
	}
	r.res.Graph, r.res.GraphChannels = compareGraphs(r.cat)
	calls := r.cat.calls()
	if o.progress != nil {
		o.progress.Start(len(first.calls) + len(calls))
		defer o.progress.Done()
	}
	for i, c := range first.calls {
		r.record(c, compare(r.cat, c, first.answers[i]))
	}
	if o.progress != nil {
		o.progress.Add(len(first.calls))
	}
	err = pool(ctx, o.concurrency, len(calls), func(ctx context.Context, i int) error {
		a, err := r.both(ctx, calls[i])
		if err != nil {
			return err
		}
		r.record(calls[i], compare(r.cat, calls[i], a))
		if o.progress != nil {
			o.progress.Add(1)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, rpc := range RPCs {
		r.res.Stats = append(r.res.Stats, *r.stats[rpc])
	}
	r.res.finish()
	return r.res, nil
}

// checkRun is one check in progress.
type checkRun struct {
	sides [2]*side
	cat   *catalog
	mu    sync.Mutex // guards res.Diffs and stats
	res   *Result
	stats map[string]*RPCStats
}

// answered are calls made with their answers, not compared yet.
type answered struct {
	calls   []call
	answers [][2]answer
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

// record counts c's differences in its RPC's statistics.
func (r *checkRun) record(c call, diffs []Diff) {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.stats[c.rpc]
	st.Calls++
	worst := Class("")
	for _, d := range diffs {
		if worst != Loss {
			worst = d.Class
		}
	}
	switch worst {
	case "":
		st.Identical++
	case Benign:
		st.Benign++
	case Loss:
		st.Losses++
	}
	r.res.Diffs = append(r.res.Diffs, diffs...)
}

// contents learns what the catalogs contain: ListPackages, ListBundles
// and GetPackage of every package either side names (plus a not-found
// probe), indexed into r.cat. The calls are returned to be compared.
func (r *checkRun) contents(ctx context.Context, o options) (answered, error) {
	var out answered
	for _, c := range []call{{rpc: RPCListPackages}, {rpc: RPCListBundles}} {
		a, err := r.both(ctx, c)
		if err != nil {
			return out, err
		}
		out.calls, out.answers = append(out.calls, c), append(out.answers, a)
	}
	pkgs := map[string]bool{}
	for s := range 2 {
		for _, n := range out.answers[0][s].names {
			pkgs[n] = true
		}
		for _, b := range out.answers[1][s].bundles {
			r.cat.sides[s].addBundle(b)
			pkgs[b.GetPackageName()] = true
		}
	}
	pkgCalls := []call{}
	for _, n := range sortedKeys(pkgs, strLess) {
		pkgCalls = append(pkgCalls, call{rpc: RPCGetPackage, pkg: n})
	}
	pkgCalls = append(pkgCalls, call{rpc: RPCGetPackage, pkg: probePackage, probe: true})
	pkgAnswers := make([][2]answer, len(pkgCalls))
	if err := pool(ctx, o.concurrency, len(pkgCalls), func(ctx context.Context, i int) error {
		a, err := r.both(ctx, pkgCalls[i])
		pkgAnswers[i] = a
		return err
	}); err != nil {
		return out, err
	}
	for i, c := range pkgCalls {
		for s := range 2 {
			if p := pkgAnswers[i][s].pkg; p != nil && pkgAnswers[i][s].err == nil && !c.probe {
				r.cat.sides[s].packages[c.pkg] = p
			}
		}
	}
	r.cat.build()
	out.calls, out.answers = append(out.calls, pkgCalls...), append(out.answers, pkgAnswers...)
	return out, nil
}

// pool runs fn(0..n-1) on at most workers goroutines; the first error
// cancels the rest and is returned.
func pool(parent context.Context, workers, n int, fn func(ctx context.Context, i int) error) error {
	g, ctx := errgroup.WithContext(parent)
	g.SetLimit(workers)
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error { return fn(ctx, i) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return parent.Err()
}
