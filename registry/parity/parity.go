package parity

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/operator-catalog/olmcat/input"
)

// DefaultConcurrency is how many calls run at once by default.
const DefaultConcurrency = 8

// Progress receives the advance of a check, in steps of work: Start
// once the catalogs' contents are listed (one step per package and one
// for the catalog-wide calls), Add per finished step, Done at the end.
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
	kinds       [2]input.Kind
	maxDiffs    int
	reports     []Report
	loopback    bool
	onAbandoned func(dir string)
}

// WithKinds names the backend of each side: input.KindSQLite (a legacy
// sqlite server) or input.KindDeclcfg (a declarative config server).
// A grpc:// side must be named, since the rules that explain differences
// between the sqlite and the declarative config servers apply only
// between those two; a local side is detected, and "" keeps that.
func WithKinds(left, right input.Kind) Option {
	return func(o *options) { o.kinds = [2]input.Kind{left, right} }
}

// WithOnAbandonedRemoved calls fn with each scratch directory an earlier
// check left (killed before it could remove it) and this one removed.
func WithOnAbandonedRemoved(fn func(dir string)) Option {
	return func(o *options) { o.onAbandoned = fn }
}

// WithConcurrency sets how many calls (each made on both sides) run at
// once (DefaultConcurrency when unset or not positive).
func WithConcurrency(n int) Option { return func(o *options) { o.concurrency = n } }

// WithMaxDiffs keeps only the first n differences (losses first) in
// Result.Diffs; a negative n, the default, keeps all. The counts
// (DiffCounts, RulesSeen, Stats) always cover every difference, and a
// Report sees every one: a large catalog can differ benignly in hundreds
// of thousands of places, which a bounded Result does not hold.
func WithMaxDiffs(n int) Option { return func(o *options) { o.maxDiffs = n } }

// WithReport passes the check's outcome to rep while the check runs (see
// RuleSamples, and PackageReport for a report written package by
// package); each WithReport adds one.
func WithReport(rep Report) Option { return func(o *options) { o.reports = append(o.reports, rep) } }

// WithLoopback serves each local side over gRPC on a 127.0.0.1 port and
// queries it through the wire, as a live server is. By default a local
// side is answered in process by the same server, which gives the same
// answers (one the wire could not carry becomes grpc's error) without
// encoding each twice.
func WithLoopback(on bool) Option { return func(o *options) { o.loopback = on } }

// WithProgress reports the check's advance to p.
func WithProgress(p Progress) Option { return func(o *options) { o.progress = p } }

// Check compares what left and right serve over the api.Registry API,
// call by call, and classifies every difference. Each side is a sqlite
// index file, a declarative config directory or grpc://host:port.
//
// It returns an error only when a side cannot be opened or reached; data
// differences, losses included, are in the Result (see Result.OK).
func Check(ctx context.Context, left, right string, opts ...Option) (*Result, error) {
	o := options{concurrency: DefaultConcurrency, maxDiffs: -1}
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
			s, err := openSide(ctx, ref, o.loopback)
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
func backendKinds(sides [2]*side, given [2]input.Kind) ([2]input.Kind, error) {
	var out [2]input.Kind
	for i, s := range sides {
		g := given[i]
		if g != "" && g != input.KindSQLite && g != input.KindDeclcfg {
			return out, fmt.Errorf("side %s: kind %q: want %s or %s", s.ref, g, input.KindSQLite, input.KindDeclcfg)
		}
		switch {
		case s.kind != input.KindGRPC:
			if g != "" && g != s.kind {
				return out, fmt.Errorf("side %s is a %s catalog, not %s", s.ref, s.kind, g)
			}
			out[i] = s.kind
		case g == "":
			return out, fmt.Errorf("side %s is a live server: name its backend kind (%s or %s, WithKinds), since the sqlite vs declarative config rules apply only between those two", s.ref, input.KindSQLite, input.KindDeclcfg)
		default:
			out[i] = g
		}
	}
	return out, nil
}
