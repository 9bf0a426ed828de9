package declcfg

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// newLoadOptions applies opts over the defaults.
func newLoadOptions(opts []LoadOption) loadOptions {
	o := loadOptions{}
	for _, opt := range opts {
		opt(&o)
	}
	if o.concurrency < 1 {
		o.concurrency = runtime.GOMAXPROCS(0)
	}
	return o
}

// loadEachFile decodes files (paths relative to r) with up to
// o.concurrency at once, keeping o.packages' blobs, and hands each file's blobs to keep, from the decoding goroutine.
// Errors are kept per file and the first one in file order is returned,
// so the error reported for a catalog does not depend on scheduling;
// files after the earliest failure found so far are skipped.
func loadEachFile(ctx context.Context, r *os.Root, files []string, o loadOptions, keep func(i int, cfg *DeclarativeConfig)) error {
	errs := make([]error, len(files))
	var firstBad atomic.Int64
	firstBad.Store(int64(len(files)))
	var g errgroup.Group
	g.SetLimit(o.concurrency)
	for i, rel := range files {
		g.Go(func() error {
			if int64(i) > firstBad.Load() {
				return nil
			}
			var cfg *DeclarativeConfig
			if err := ctx.Err(); err != nil {
				errs[i] = err
			} else {
				cfg, errs[i] = loadFile(ctx, r, rel, o)
			}
			if errs[i] == nil {
				keep(i, cfg)
				return nil
			}
			for {
				cur := firstBad.Load()
				if int64(i) >= cur || firstBad.CompareAndSwap(cur, int64(i)) {
					break
				}
			}
			return nil
		})
	}
	_ = g.Wait()
	if bad := firstBad.Load(); bad < int64(len(files)) {
		return errs[bad]
	}
	return nil
}

// EachPackage calls fn with the blobs of each package of the declarative
// config directory root, in opm's order (sorted, blobs without a package
// last), each package's blobs in the order LoadDir gives them, so that
// what fn is given, concatenated, is LoadDir(root). The catalog is never
// held: fn must not keep the blobs beyond what it needs.
//
// A first pass scans every file for the packages its blobs name (framing
// and the schema, package and name keys only, as ValidateDir does), so a
// file that is not a blob stream, or a blob without a schema, fails with
// LoadDir's error before fn is called. The second pass decodes the files
// of each package once (a few files ahead, concurrently) and drops each
// file once its last package was handed over. A blob that fails only
// when fully decoded (a field of the wrong type, an object ref that does
// not resolve) stops the walk with LoadDir's error after the packages
// before it were handed over. Memory is bounded by the largest files, not
// the catalog; a catalog kept in one file is held whole. An error from fn
// stops the walk and is returned.
func EachPackage(ctx context.Context, root string, fn func(pkg string, cfg *DeclarativeConfig) error, opts ...LoadOption) error {
	o := newLoadOptions(opts)
	r, err := openRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	files, err := listCatalogFiles(r)
	if err != nil {
		return fmt.Errorf("walk %s: %w", root, err)
	}
	filePkgs, err := filePackages(ctx, r, files, o)
	if err != nil {
		return err
	}
	if err := eachPackage(ctx, r, files, filePkgs, o, fn); err != nil {
		return firstLoadError(ctx, r, files, o, err)
	}
	return nil
}

// filePackages lists the packages of each file, or LoadDir's error. With
// WithPackages, files are decoded with the filter (files that cannot hold
// a named package are skipped unread, as LoadDir skips them); otherwise
// they are only scanned.
func filePackages(ctx context.Context, r *os.Root, files []string, o loadOptions) ([][]string, error) {
	if o.packages == nil {
		return scanFilePackages(ctx, r, files, o)
	}
	filePkgs := make([][]string, len(files))
	err := loadEachFile(ctx, r, files, o, func(i int, cfg *DeclarativeConfig) {
		filePkgs[i] = packageNames(cfg)
	})
	return filePkgs, err
}

// eachPackage calls fn with the blobs of each package in opm's order
// (sorted, "" last), each package's blobs in the order LoadDir gives them.
// filePkgs lists the packages of each file. Each file is decoded once
// (up to 2*o.concurrency files ahead, concurrently) and dropped once its
// last package was handed to fn. A file that no longer holds the packages
// filePkgs lists fails with errPlanMismatch.
func eachPackage(ctx context.Context, r *os.Root, files []string, filePkgs [][]string, o loadOptions, fn func(pkg string, cfg *DeclarativeConfig) error) error {
	plan := planPackages(filePkgs)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	loaded, taken := prefetchFiles(ctx, r, files, o, plan.fileOrder, 2*o.concurrency)
	cache := map[int]map[string]*DeclarativeConfig{}
	for _, pkg := range plan.packages {
		part := &DeclarativeConfig{}
		for _, i := range plan.files[pkg] {
			split, ok := cache[i]
			if !ok {
				res := <-loaded[i]
				taken()
				if res.err != nil {
					return &fileError{file: i, err: res.err}
				}
				split = SplitByPackage(res.cfg)
				if !sameNames(split, filePkgs[i]) {
					return &fileError{file: i, err: fmt.Errorf("load %s: %w", files[i], errPlanMismatch)}
				}
				cache[i] = split
			}
			part.Merge(split[pkg])
			if plan.refs[i]--; plan.refs[i] == 0 {
				delete(cache, i)
			}
		}
		if err := fn(pkg, part); err != nil {
			return err
		}
	}
	return nil
}

// errPlanMismatch says a file decoded to other packages than its first
// reading found (it changed in between, or the scan and the decoder
// disagree).
var errPlanMismatch = errors.New("file holds other packages than when first read")

// fileError is a failure to decode the file at index file.
type fileError struct {
	file int
	err  error
}

func (e *fileError) Error() string { return e.err.Error() }
func (e *fileError) Unwrap() error { return e.err }

// sameNames reports whether split holds exactly the packages names.
func sameNames(split map[string]*DeclarativeConfig, names []string) bool {
	if len(split) != len(names) {
		return false
	}
	for _, n := range names {
		if _, ok := split[n]; !ok {
			return false
		}
	}
	return true
}

// packagePlan is the write order of a directory streamed by package.
type packagePlan struct {
	// packages in opm's write order: sorted, "" (no package) last.
	packages []string
	// files lists, per package, the files holding its blobs in file order.
	files map[string][]int
	// refs counts, per file, the packages still to be written from it.
	refs []int
	// fileOrder lists the files in the order the writer first needs them.
	fileOrder []int
}

func planPackages(filePkgs [][]string) packagePlan {
	p := packagePlan{files: map[string][]int{}, refs: make([]int, len(filePkgs))}
	for i, names := range filePkgs {
		for _, n := range names {
			p.files[n] = append(p.files[n], i)
		}
		p.refs[i] = len(names)
	}
	for n := range p.files {
		if n != "" {
			p.packages = append(p.packages, n)
		}
	}
	slices.Sort(p.packages)
	if _, ok := p.files[""]; ok {
		p.packages = append(p.packages, "")
	}
	seen := make([]bool, len(filePkgs))
	for _, n := range p.packages {
		for _, i := range p.files[n] {
			if !seen[i] {
				seen[i] = true
				p.fileOrder = append(p.fileOrder, i)
			}
		}
	}
	return p
}

// loadResult is one file decoded by prefetchFiles.
type loadResult struct {
	cfg *DeclarativeConfig
	err error
}

// prefetchFiles decodes the files in order, concurrently, while fewer than
// ahead decoded files wait to be taken, and returns one channel per file
// index (nil for files not in order). The caller calls taken after
// receiving each file, and cancels ctx to stop early.
func prefetchFiles(ctx context.Context, r *os.Root, files []string, o loadOptions, order []int, ahead int) (out []chan loadResult, taken func()) {
	out = make([]chan loadResult, len(files))
	for _, i := range order {
		out[i] = make(chan loadResult, 1)
	}
	slots := make(chan struct{}, ahead)
	go func() {
		for _, i := range order {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			go func() {
				cfg, err := loadFile(ctx, r, files[i], o)
				out[i] <- loadResult{cfg, err}
			}()
		}
	}()
	return out, func() { <-slots }
}
