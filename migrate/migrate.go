package migrate

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/model"
	"github.com/operator-catalog/olmcat/legacy"
)

// Migrate converts the legacy index database at dbPath into a declarative
// config catalog in outDir. Packages are read, converted, validated and
// written one at a time (by up to WithWorkers goroutines), so memory does
// not grow with the number of packages. Everything goes to a temporary
// directory beside outDir that is renamed into place only when every
// package converted without problems, passed declarative config
// validation and the WithBeforeCommit hook; on any error, problem or
// cancellation of ctx the temporary directory is removed and outDir is
// left as it was.
//
// The output directory may not be, hold or lie inside dbPath. Temporary
// directories that earlier runs for the same output left behind when they
// were killed are removed and listed as notes.
//
// The returned Report is non-nil whenever the output could be prepared
// and the database opened, also on error. Unservable content is returned as a *ProblemsError.
func Migrate(ctx context.Context, dbPath, outDir string, opts ...Option) (*Report, error) {
	return migrateTo(ctx, dbPath, outDir, opts, func(w *declcfg.DirWriter, res *packageResult) error {
		return w.WritePackage(res.cfg) // its errors name the package
	})
}

// migrateTo is Migrate with what is written of each package left to
// write, which runs in the converting workers, any order.
func migrateTo(ctx context.Context, dbPath, outDir string, opts []Option, write func(*declcfg.DirWriter, *packageResult) error) (*Report, error) {
	o, err := newOptions(opts)
	if err != nil {
		return nil, err
	}
	if err := o.refuseEachOnly("migrate"); err != nil {
		return nil, err
	}
	// The output is checked (not an input, not in the way) before the
	// database is read, so that a refusal is not reported as a failed
	// migration.
	w, err := declcfg.NewDirWriter(outDir, declcfg.WithInputs(dbPath),
		declcfg.WithLayout(o.layout), declcfg.WithFormat(o.format), declcfg.WithForce(o.force))
	if err != nil {
		return nil, err
	}
	committed := false
	defer func() {
		if !committed {
			_ = w.Abort()
		}
	}()
	db, names, rep, err := open(ctx, dbPath, o)
	if err != nil {
		return rep, err
	}
	rep.Output = outDir
	for _, s := range w.Swept() {
		rep.Notes = append(rep.Notes, Finding{Kind: NoteAbandonedTemp, Value: s.Dir,
			Detail: s.String(), Hint: Hint(NoteAbandonedTemp)})
	}

	s := sink{arenas: true, handle: func(res *packageResult) error { return write(w, res) }}
	err = run(ctx, db, names, o, rep, s)
	// Nothing after reads the database: its index and page cache go
	// before a check before the commit (--verify) peaks.
	db.Close()
	if err != nil {
		return rep, err
	}
	if len(rep.Problems) > 0 {
		return rep, &ProblemsError{Problems: rep.Problems}
	}
	if o.beforeCommit != nil {
		if err := o.beforeCommit(ctx, w.Dir()); err != nil {
			return rep, err
		}
	}
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	if err := w.Commit(); err != nil {
		return rep, err // it names the output
	}
	committed = true
	return rep, nil
}

// Render converts the legacy index database at dbPath like Migrate and
// writes the blobs of every package, in package order, to w as one stream
// (what opm render wrote for a sqlite file). Packages are converted
// concurrently but written in order; output stops at the first package
// with a problem and a *ProblemsError lists them all.
func Render(ctx context.Context, dbPath string, w io.Writer, opts ...Option) (*Report, error) {
	o, err := newOptions(opts)
	if err != nil {
		return nil, err
	}
	if err := o.refuseMigrateOnly("render"); err != nil {
		return nil, err
	}
	if err := o.refuseEachOnly("render"); err != nil {
		return nil, err
	}
	db, names, rep, err := open(ctx, dbPath, o)
	if err != nil {
		return rep, err
	}
	defer db.Close()

	bw := bufio.NewWriterSize(w, 256*1024)
	emit := sink{ordered: true, arenas: true, handle: func(res *packageResult) error {
		if err := declcfg.WriteStream(bw, res.cfg, o.format); err != nil {
			return fmt.Errorf("write package %s: %w", res.name, err)
		}
		return nil
	}}
	runErr := run(ctx, db, names, o, rep, emit)
	if err := bw.Flush(); err != nil && runErr == nil {
		runErr = fmt.Errorf("write: %w", err)
	}
	if runErr != nil {
		return rep, runErr
	}
	if len(rep.Problems) > 0 {
		return rep, &ProblemsError{Problems: rep.Problems}
	}
	return rep, nil
}

// Load converts the legacy index database at dbPath like Migrate and
// returns the whole catalog in memory, for callers that merge it with
// other inputs (render of several arguments). Prefer Render, Each or
// Migrate for large databases: they hold a few packages at a time.
func Load(ctx context.Context, dbPath string, opts ...Option) (*declcfg.DeclarativeConfig, *Report, error) {
	cfg := &declcfg.DeclarativeConfig{}
	rep, err := each(ctx, dbPath, "load", func(_ string, pkg *declcfg.DeclarativeConfig) error {
		cfg.Merge(pkg)
		return nil
	}, opts...)
	if err != nil {
		return nil, rep, err
	}
	return cfg, rep, nil
}

// Each converts the legacy index database at dbPath like Migrate and
// calls fn with the name and the catalog of each package, in package
// order, from one goroutine, so a caller keeps what it needs of each package without
// the catalog being held. As with Render, fn is called until the first
// package with a problem, and a *ProblemsError lists them all; an error
// from fn stops the conversion and is returned.
func Each(ctx context.Context, dbPath string, fn func(pkg string, cfg *declcfg.DeclarativeConfig) error, opts ...Option) (*Report, error) {
	return each(ctx, dbPath, "each", fn, opts...)
}

// each is Each; verb names the caller in the refusal of migrate-only
// options.
func each(ctx context.Context, dbPath, verb string, fn func(pkg string, cfg *declcfg.DeclarativeConfig) error, opts ...Option) (*Report, error) {
	o, err := newOptions(opts)
	if err != nil {
		return nil, err
	}
	if err := o.refuseMigrateOnly(verb); err != nil {
		return nil, err
	}
	if verb != "each" {
		if err := o.refuseEachOnly(verb); err != nil {
			return nil, err
		}
	}
	db, names, rep, err := open(ctx, dbPath, o)
	if err != nil {
		return rep, err
	}
	defer db.Close()
	// No arenas: fn may keep what it is given (Load keeps everything).
	s := sink{ordered: true, handle: func(res *packageResult) error { return fn(res.name, res.cfg) }}
	if err := run(ctx, db, names, o, rep, s); err != nil {
		return rep, err
	}
	if len(rep.Problems) > 0 {
		return rep, &ProblemsError{Problems: rep.Problems}
	}
	return rep, nil
}

// pageCacheKiB is the sqlite page cache of each connection of a
// conversion, which reads every package once (legacy.PageCache).
const pageCacheKiB = 512

// open opens the database read-only and starts the report.
func open(ctx context.Context, dbPath string, o *options) (*legacy.DB, []string, *Report, error) {
	db, err := legacy.Open(ctx, dbPath, legacy.PageCache(pageCacheKiB))
	if err != nil {
		return nil, nil, nil, err
	}
	rep := &Report{Input: dbPath, SchemaLevel: db.Level(), MigrateLevel: string(o.migrateLevel)}
	rep.init()
	rep.Repairs = append(rep.Repairs, db.Repairs()...)
	names, err := db.PackageNames(ctx)
	if err != nil {
		db.Close()
		return nil, nil, rep, fmt.Errorf("list packages of %s: %w", dbPath, err)
	}
	if o.packages != nil {
		names = slices.DeleteFunc(names, func(n string) bool { return !o.packages[n] })
	}
	return db, names, rep, nil
}

// sink is where run hands each converted package.
type sink struct {
	// ordered: handle runs in package order, in one goroutine (Render,
	// Load). Otherwise it runs in the converting worker, in any order, and
	// the package's catalog is dropped right after (Migrate writes files).
	ordered bool
	// arenas: bundle object values are built in recycled arenas, which
	// are reused once handle returns; handle must not keep them.
	arenas bool
	// handle receives the packages until the first package with a
	// problem; from then on the rest is only converted and checked, for
	// the report.
	handle func(*packageResult) error
}

// run converts every package with o.workers goroutines. Each worker reads,
// converts and validates one package at a time; results are then taken in
// package order and added to the report. Packages go to s.handle (see
// sink). At most 2*workers packages are in memory at once.
func run(ctx context.Context, db *legacy.DB, names []string, o *options, rep *Report, s sink) error {
	g, gctx := errgroup.WithContext(ctx)
	order := make(chan chan *packageResult, o.workers)
	jobs := queueJobs(g, gctx, names, order)
	var failed atomic.Bool
	for range o.workers {
		g.Go(func() error {
			for j := range jobs {
				res, err := convertOne(gctx, db, j.name, o, s.arenas)
				if err != nil {
					return err
				}
				if len(res.problems) > 0 {
					failed.Store(true)
				}
				if !s.ordered {
					if !failed.Load() {
						if err := s.handle(res); err != nil {
							return err
						}
					}
					// Handled: only the findings are needed from here on.
					res.cfg = nil
					res.release()
				}
				j.out <- res
			}
			return nil
		})
	}
	g.Go(func() error {
		done := 0
		for out := range order {
			var res *packageResult
			select {
			case res = <-out:
			case <-gctx.Done():
				return gctx.Err()
			}
			rep.add(res)
			if s.ordered {
				err := error(nil)
				if len(rep.Problems) == 0 {
					err = s.handle(res)
				}
				res.release()
				if err != nil {
					return err
				}
			}
			done++
			if o.progress != nil {
				o.progress(done, len(names))
			}
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return err
	}
	// A cancelled context is an error even when every worker finished.
	if err := ctx.Err(); err != nil {
		return err
	}
	sortFindings(rep.Drops)
	sortFindings(rep.Notes)
	sortFindings(rep.Problems)
	return nil
}

// job is one package to convert; its result goes to out.
type job struct {
	name string
	out  chan *packageResult
}

// queueJobs feeds the package names to the workers, queuing each job's
// result channel on order first so that results are taken in name order.
func queueJobs(g *errgroup.Group, gctx context.Context, names []string, order chan chan *packageResult) <-chan job {
	jobs := make(chan job)
	g.Go(func() error {
		defer close(jobs)
		defer close(order)
		for _, name := range names {
			j := job{name: name, out: make(chan *packageResult, 1)}
			select {
			case order <- j.out:
			case <-gctx.Done():
				return gctx.Err()
			}
			select {
			case jobs <- j:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	return jobs
}

// convertOne reads, converts and validates one package.
func convertOne(ctx context.Context, db *legacy.DB, name string, o *options, arenas bool) (*packageResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if o.unread != nil && o.unread(name) {
		return &packageResult{name: name}, nil
	}
	pd, err := db.ReadPackage(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("read package %s: %w", name, err)
	}
	res := convertPackage(pd, o, arenas)
	if len(res.problems) == 0 {
		// The converted package must pass the same validation a server
		// applies when it loads the catalog; anything the checks above
		// did not foresee is a problem too.
		if _, err := model.FromDeclcfg(validationView(res.cfg)); err != nil {
			for _, line := range validationMessages(err) {
				res.problems = append(res.problems, Finding{Kind: ProblemInvalidOutput, Package: name,
					Detail: line, Hint: Hint(ProblemInvalidOutput)})
			}
		}
	}
	if len(o.packageGraphs) > 0 {
		before := legacyGraphs(pd)
		for _, fn := range o.packageGraphs {
			fn(before, res.cfg)
		}
	}
	return res, nil
}

// validationView is cfg for model.FromDeclcfg without the values this package
// encoded mechanically and which are most of the bytes: olm.bundle.object
// (base64 of manifests already checked to be JSON) and olm.csv.metadata
// (encoded from a typed value). Decoding them again would double the cost
// of a migration. Related images are left out too: relatedImages parsed
// every one it kept with the parser the model's check uses, and one that
// fails is a problem, with which a package is not validated. Every other
// rule (including "image or objects present") sees the same catalog.
func validationView(cfg *declcfg.DeclarativeConfig) *declcfg.DeclarativeConfig {
	v := *cfg
	v.Bundles = make([]declcfg.Bundle, len(cfg.Bundles))
	for i, b := range cfg.Bundles {
		props := make([]declcfg.Property, 0, len(b.Properties))
		objects := 0
		for _, p := range b.Properties {
			switch p.Type {
			case declcfg.PropertyBundleObject:
				objects++
				continue
			case declcfg.PropertyCSVMetadata:
				// Encoded by this package from a typed value: valid and of
				// the olm.csv.metadata shape by construction. Still counted
				// as present for the rules.
				props = append(props, declcfg.Property{Type: p.Type, Value: []byte("{}")})
				continue
			}
			props = append(props, p)
		}
		b.Properties = props
		b.Objects = make([]string, objects)
		b.RelatedImages = nil
		v.Bundles[i] = b
	}
	return &v
}

// validationMessages splits a validation error into one message per problem.
func validationMessages(err error) []string {
	var ve *model.ValidationError
	if errors.As(err, &ve) && len(ve.Problems) > 0 {
		out := make([]string, 0, len(ve.Problems))
		for _, p := range ve.Problems {
			out = append(out, fmt.Sprint(p))
		}
		return out
	}
	return strings.Split(err.Error(), "\n")
}

// add folds one package's result into the report.
func (r *Report) add(res *packageResult) {
	for _, rp := range res.repairs {
		// A stranded bundle is reported once, as a drop with its hint.
		if rp.Kind != legacy.RepairStranded {
			r.Repairs = append(r.Repairs, rp)
		}
	}
	r.Drops = append(r.Drops, res.drops...)
	r.Notes = append(r.Notes, res.notes...)
	r.Problems = append(r.Problems, res.problems...)
	r.Counts.Packages += res.counts.Packages
	r.Counts.Channels += res.counts.Channels
	r.Counts.Bundles += res.counts.Bundles
	r.Counts.Deprecations += res.counts.Deprecations
	r.Counts.Objects += res.counts.Objects
}
