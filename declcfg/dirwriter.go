package declcfg

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/operator-catalog/olmcat/internal/crashpoint"
	"github.com/operator-catalog/olmcat/internal/outdir"
	"github.com/operator-catalog/olmcat/internal/pathcheck"
)

// Layout is the directory layout of a written catalog.
type Layout string

// Directory layouts.
const (
	// LayoutOPM is opm migrate's layout: <out>/<pkg>/catalog.<ext> with
	// bundle objects inline, package-less blobs in <out>/catalog.<ext>.
	LayoutOPM Layout = "opm"
	// LayoutObjects is the declarative-index-config proposal's layout:
	// <out>/<pkg>/<pkg>.<ext> with every bundle object in its own file
	// under <out>/<pkg>/objects/<bundle>/, referenced by olm.bundle.object
	// refs; package-less blobs in <out>/__global.<ext>.
	LayoutObjects Layout = "objects"
)

// ParseLayout checks a user-supplied layout name.
func ParseLayout(s string) (Layout, error) {
	switch l := Layout(s); l {
	case LayoutOPM, LayoutObjects:
		return l, nil
	}
	return "", fmt.Errorf("unknown layout %q (want %s or %s)", s, LayoutOPM, LayoutObjects)
}

// WriteOption configures NewDirWriter and WriteDir.
type WriteOption func(*writeOptions)

type writeOptions struct {
	layout Layout
	format Format
	force  bool
	onPkg  func(pkg string)
	inputs []string
	onGone func(dir string)
}

// WithLayout selects the directory layout (default LayoutOPM).
func WithLayout(l Layout) WriteOption { return func(o *writeOptions) { o.layout = l } }

// WithFormat selects the file format (default FormatJSON).
func WithFormat(f Format) WriteOption { return func(o *writeOptions) { o.format = f } }

// WithForce allows replacing an existing non-empty output directory. The
// old directory is only removed once the new one is complete.
func WithForce(force bool) WriteOption { return func(o *writeOptions) { o.force = force } }

// WithInputs names the inputs the catalog is made from: the output
// directory may not be, contain or lie inside any of them (symlinks
// resolved), so that replacing it can never delete or change an input.
func WithInputs(paths ...string) WriteOption {
	return func(o *writeOptions) { o.inputs = append(o.inputs, paths...) }
}

// WithOnAbandonedRemoved calls fn with a sentence for each temporary
// directory of an earlier, killed run for the same output that
// NewDirWriter removed or whose committed write it finished (see
// DirWriter.Swept), e.g. to tell the user.
func WithOnAbandonedRemoved(fn func(note string)) WriteOption {
	return func(o *writeOptions) { o.onGone = fn }
}

// WithOnPackageWritten calls fn after each package is written, e.g. to
// advance a progress bar. fn may be called concurrently.
func WithOnPackageWritten(fn func(pkg string)) WriteOption {
	return func(o *writeOptions) { o.onPkg = fn }
}

// objectsDir is the folder of a package directory that holds the bundle
// object files in the objects layout.
const objectsDir = "objects"

// globalBase is the file name (without extension) of package-less blobs in
// the objects layout.
const globalBase = "__global"

// DirWriter writes a catalog directory atomically: everything goes to a
// temporary directory beside the output (inside it when the output is a
// mount point), which Commit moves into place (internal/outdir: a commit
// record first, so that a run killed at any step leaves the old output or
// one the next run completes). Nothing is visible at the output path
// before Commit, and a failed or aborted write leaves the output path as
// it was.
type DirWriter struct {
	out   string
	tmp   string
	tx    *outdir.Tx
	swept []Swept
	opts  writeOptions

	mu       sync.Mutex
	written  map[string]string // directory element -> package name
	global   bool
	finished bool // committed or aborted
}

// Swept is what a writer found of an earlier, killed run for the same
// output: a temporary directory removed, or a committed write finished.
type Swept = outdir.Swept

// NewDirWriter prepares writing a catalog to outDir. It fails, naming
// outDir, if outDir exists and is not an empty directory, unless
// WithForce(true) is given. What earlier runs for outDir left when they
// were killed is finished or removed first (Swept).
func NewDirWriter(outDir string, opts ...WriteOption) (*DirWriter, error) {
	o := writeOptions{layout: LayoutOPM, format: FormatJSON}
	for _, opt := range opts {
		opt(&o)
	}
	if _, err := ParseLayout(string(o.layout)); err != nil {
		return nil, err
	}
	if _, err := ParseFormat(string(o.format)); err != nil {
		return nil, err
	}
	if outDir == "" {
		return nil, errors.New("output directory must be set")
	}
	out := filepath.Clean(outDir)
	if err := pathcheck.Separate("output directory", out, o.inputs...); err != nil {
		return nil, err
	}
	// Recovered first and told at once: what a killed run left is dealt
	// with even if this run is killed too.
	swept, err := outdir.Recover(out)
	if o.onGone != nil {
		for _, s := range swept {
			o.onGone(s.String())
		}
	}
	if err != nil {
		return nil, err
	}
	tx, err := outdir.Begin(out, o.force)
	if err != nil {
		return nil, err
	}
	// Checked after recovery: a finished commit may have filled out.
	if err := checkOutput(out, o.force); err != nil {
		_ = tx.Abort()
		return nil, err
	}
	return &DirWriter{out: out, tmp: tx.Dir(), tx: tx, swept: append(swept, tx.Swept()...), opts: o, written: map[string]string{}}, nil
}

// Swept returns what NewDirWriter found of earlier runs for the same
// output that were killed: temporary directories removed, committed
// writes finished.
func (w *DirWriter) Swept() []Swept { return w.swept }

// checkOutput refuses an output path that holds anything, unless force.
// A non-directory is never replaced.
func checkOutput(out string, force bool) error {
	st, err := os.Stat(out)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("output directory %s: %w", out, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("output directory %s exists and is not a directory", out)
	}
	if force {
		return nil
	}
	empty, err := outdir.IsEmpty(out)
	if err != nil {
		return fmt.Errorf("output directory %s: %w", out, err)
	}
	if !empty {
		return pathcheck.Exists("output directory %s exists and is not empty", out)
	}
	return nil
}

// Dir returns the temporary directory being written, so that callers can
// check the result (validate, compare) before Commit.
func (w *DirWriter) Dir() string { return w.tmp }

// packageOf returns the one package all blobs of cfg belong to.
func packageOf(cfg *DeclarativeConfig) (string, error) {
	names := packageNames(cfg)
	switch len(names) {
	case 0:
		return "", errors.New("no blobs to write")
	case 1:
		return names[0], nil
	}
	list := make([]string, len(names))
	for i, n := range names {
		list[i] = fmt.Sprintf("%q", n)
	}
	sort.Strings(list)
	return "", fmt.Errorf("blobs of more than one package: %s", strings.Join(list, ", "))
}

// WritePackage writes all blobs of one package. It is safe to call
// concurrently for different packages; the bytes written depend only on
// cfg. cfg is not modified.
func (w *DirWriter) WritePackage(cfg *DeclarativeConfig) error {
	pkg, err := packageOf(cfg)
	if err != nil {
		return fmt.Errorf("write package: %w", err)
	}
	if pkg == "" {
		return errors.New("write package: blobs have no package (use WriteGlobal)")
	}
	elem := safePathElement(pkg)
	w.mu.Lock()
	if w.finished {
		w.mu.Unlock()
		return fmt.Errorf("write package %q: writer already committed or aborted", pkg)
	}
	if prev, ok := w.written[elem]; ok {
		w.mu.Unlock()
		if prev == pkg {
			return fmt.Errorf("write package %q: already written", pkg)
		}
		return fmt.Errorf("write package %q: directory %q already used by package %q", pkg, elem, prev)
	}
	w.written[elem] = pkg
	w.mu.Unlock()

	dir := filepath.Join(w.tmp, elem)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("write package %q: %w", pkg, err)
	}
	if err := w.writePackage(dir, elem, cfg); err != nil {
		return fmt.Errorf("write package %q: %w", pkg, err)
	}
	if w.opts.onPkg != nil {
		w.opts.onPkg(pkg)
	}
	return nil
}

func (w *DirWriter) writePackage(dir, elem string, cfg *DeclarativeConfig) error {
	ext := w.opts.format.Ext()
	switch w.opts.layout {
	case LayoutObjects:
		out, wroteObjects, err := writeBundleObjects(dir, cfg)
		if err != nil {
			return err
		}
		if wroteObjects {
			// Object files are YAML but are no blobs: keep loaders out.
			if err := os.WriteFile(filepath.Join(dir, IndexIgnoreFile), []byte("/"+objectsDir+"/\n"), 0o644); err != nil {
				return err
			}
		}
		return writeStreamFile(filepath.Join(dir, elem+"."+ext), out, w.opts.format)
	default:
		return writeStreamFile(filepath.Join(dir, "catalog."+ext), cfg, w.opts.format)
	}
}

// WriteGlobal writes the blobs that belong to no package: in the opm
// layout to <out>/catalog.<ext>, in the objects layout to
// <out>/__global.<ext>. Nothing is written when cfg holds no blob.
func (w *DirWriter) WriteGlobal(cfg *DeclarativeConfig) error {
	if cfg == nil || len(cfg.Packages)+len(cfg.Channels)+len(cfg.Bundles)+len(cfg.Deprecations)+len(cfg.Others) == 0 {
		return nil
	}
	pkg, err := packageOf(cfg)
	if err != nil {
		return fmt.Errorf("write package-less blobs: %w", err)
	}
	if pkg != "" {
		return fmt.Errorf("write package-less blobs: blobs belong to package %q (use WritePackage)", pkg)
	}
	w.mu.Lock()
	if w.finished || w.global {
		w.mu.Unlock()
		return errors.New("write package-less blobs: already written, committed or aborted")
	}
	w.global = true
	w.mu.Unlock()
	name := "catalog"
	if w.opts.layout == LayoutObjects {
		name = globalBase
	}
	return writeStreamFile(filepath.Join(w.tmp, name+"."+w.opts.format.Ext()), cfg, w.opts.format)
}

func writeStreamFile(path string, cfg *DeclarativeConfig, f Format) error {
	crashpoint.Hit("create " + path)
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	bw := writerPool.Get().(*bufio.Writer)
	bw.Reset(fh)
	err = WriteStream(bw, cfg, f)
	if err == nil {
		err = bw.Flush()
	}
	bw.Reset(nil)
	writerPool.Put(bw)
	crashpoint.Hit("written " + path)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	var pe *os.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return err // "write <path>: ..." already
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Commit moves the written catalog into place. With force, an existing
// output directory is replaced only now that the new one is complete.
func (w *DirWriter) Commit() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.finished {
		return fmt.Errorf("commit %s: writer already committed or aborted", w.out)
	}
	w.finished = true
	return w.tx.Commit()
}

// Abort removes the temporary directory. It is idempotent and a no-op
// after Commit. Like Commit, call it once every WritePackage call has
// returned.
func (w *DirWriter) Abort() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.finished {
		return nil
	}
	w.finished = true
	return w.tx.Abort()
}

// WriteDir writes cfg to outDir (see NewDirWriter for the options) and
// commits it; on any error nothing is left behind.
func WriteDir(cfg *DeclarativeConfig, outDir string, opts ...WriteOption) (err error) {
	w, err := NewDirWriter(outDir, opts...)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = w.Abort()
		}
	}()
	groups := SplitByPackage(cfg)
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for name, pc := range groups {
		if name == "" {
			continue
		}
		g.Go(func() error { return w.WritePackage(pc) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if err := w.WriteGlobal(groups[""]); err != nil {
		return err
	}
	return w.Commit()
}
