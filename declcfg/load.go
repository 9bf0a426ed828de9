package declcfg

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"

	gitignore "github.com/sabhiram/go-gitignore"

	"github.com/operator-catalog/olmcat/internal/jsonscan"
	"github.com/operator-catalog/olmcat/internal/outdir"
)

// IndexIgnoreFile is the name of the gitignore-style files that exclude
// paths from loading. Each applies to its own directory and below, and is
// never loaded itself.
const IndexIgnoreFile = ".indexignore"

// LoadOption configures LoadDir.
type LoadOption func(*loadOptions)

type loadOptions struct {
	concurrency int
	packages    map[string]bool // nil: every package
	lean        bool            // WithLeanBundles
	file        string          // WithFile, WithBlob: the one file to load
	blob        *blobChoice     // WithBlob
	finished    bool            // WithRootFinished
	fileReads   func(FileRead)  // WithFileReads
}

// WithConcurrency bounds the number of files decoded at once (default
// GOMAXPROCS). Values below 1 mean the default.
func WithConcurrency(n int) LoadOption {
	return func(o *loadOptions) { o.concurrency = n }
}

// LoadDir loads every .json, .yaml and .yml file under the directory root (honouring
// .indexignore files) as blob streams and returns all blobs, ordered by
// file path then position in the file. Files are decoded concurrently.
// olm.bundle.object refs are resolved relative to the file holding the
// blob and inlined as data, so the result no longer depends on the
// directory layout; refs that leave root (by ".." or by symlink) are
// refused. The first error stops the load and names its file and blob.
// WithFile and WithBlob load one file or one blob of root instead.
func LoadDir(ctx context.Context, root string, opts ...LoadOption) (*DeclarativeConfig, error) {
	o := newLoadOptions(opts)
	r, err := openRootAs(root, o.finished)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if o.file != "" {
		return loadOne(ctx, r, root, o)
	}

	files, err := listCatalogFiles(r)
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", root, err)
	}

	results := make([]*DeclarativeConfig, len(files))
	if err := loadEachFile(ctx, r, files, o, func(i int, cfg *DeclarativeConfig) { results[i] = cfg }); err != nil {
		return nil, err
	}

	// Size the result once so that merging copies every blob exactly once.
	var np, nc, nb, nd, no int
	for _, cfg := range results {
		np, nc, nb, nd, no = np+len(cfg.Packages), nc+len(cfg.Channels), nb+len(cfg.Bundles), nd+len(cfg.Deprecations), no+len(cfg.Others)
	}
	out := &DeclarativeConfig{
		Packages:     makeIfAny[Package](np),
		Channels:     makeIfAny[Channel](nc),
		Bundles:      makeIfAny[Bundle](nb),
		Deprecations: makeIfAny[Deprecation](nd),
		Others:       makeIfAny[Meta](no),
	}
	for i, cfg := range results {
		out.Merge(cfg)
		results[i] = nil // let the per-file slices go as soon as they are merged
	}
	return out, nil
}

// makeIfAny returns an empty slice with capacity n, or nil when n is 0
// (so an empty kind stays nil, as when built by appending).
func makeIfAny[T any](n int) []T {
	if n == 0 {
		return nil
	}
	return make([]T, 0, n)
}

func openRoot(root string) (*os.Root, error) { return openRootAs(root, false) }

// openRootAs is openRoot; finished skips the look for an unfinished
// write (WithRootFinished).
func openRootAs(root string, finished bool) (*os.Root, error) {
	// A write of root killed after its commit record may have left it
	// half replaced: finished first (or refused), never read as it is.
	// Commands that detect their input (input.Classify) have done this
	// already and said so; this covers every other reader.
	if !finished {
		if _, err := outdir.FinishForRead(root); err != nil {
			return nil, fmt.Errorf("open catalog %s: %w", root, err)
		}
	}
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("open catalog %s: %w", root, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("open catalog %s: not a directory", root)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("open catalog %s: %w", root, err)
	}
	return r, nil
}

// isCatalogFile says whether a file name is loaded as a blob stream.
func isCatalogFile(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".json", ".yaml", ".yml":
		return true
	}
	return false
}

// listCatalogFiles walks the root and returns the slash-separated paths of
// the files to load, in lexical order. Symlinks are followed, to files
// and to directories, as long as their target stays inside the root (the
// root refuses the others, and the walk fails naming the link); a
// directory reached twice through links (a cycle) is an error too.
func listCatalogFiles(r *os.Root) ([]string, error) {
	ignores := map[string]*gitignore.GitIgnore{}
	ignored := func(p string, isDir bool) bool {
		for d := path.Dir(p); ; d = path.Dir(d) {
			if gi := ignores[d]; gi != nil {
				rel := p
				if d != "." {
					rel = strings.TrimPrefix(p, d+"/")
				}
				if gi.MatchesPath(rel) || (isDir && gi.MatchesPath(rel+"/")) {
					return true
				}
			}
			if d == "." {
				return false
			}
		}
	}
	var files []string
	linked := map[[2]uint64]string{} // directories entered through a symlink, by device and inode
	var visit fs.WalkDirFunc
	visit = func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 && p != "." {
			st, err := r.Stat(p)
			if errors.Is(err, fs.ErrNotExist) && !isCatalogFile(d.Name()) {
				return nil // a dangling link that could not be a catalog file anyway
			}
			if err != nil {
				return fmt.Errorf("follow symlink %s: %w", p, err)
			}
			if st.IsDir() {
				if ignored(p, true) {
					return nil
				}
				id := fileID(st)
				if first, ok := linked[id]; ok {
					return fmt.Errorf("follow symlink %s: directory already walked as %s (a symlink cycle)", p, first)
				}
				linked[id] = p
				return fs.WalkDir(r.FS(), p, visit)
			}
			if !st.Mode().IsRegular() || d.Name() == IndexIgnoreFile || !isCatalogFile(d.Name()) || ignored(p, false) {
				return nil
			}
			files = append(files, p)
			return nil
		}
		if d.IsDir() {
			if p != "." && ignored(p, true) {
				return fs.SkipDir
			}
			data, err := r.ReadFile(path.Join(p, IndexIgnoreFile))
			switch {
			case err == nil:
				ignores[p] = gitignore.CompileIgnoreLines(strings.Split(string(data), "\n")...)
			case errors.Is(err, fs.ErrNotExist):
			default:
				return fmt.Errorf("read %s: %w", path.Join(p, IndexIgnoreFile), err)
			}
			return nil
		}
		if d.Name() == IndexIgnoreFile || !isCatalogFile(d.Name()) || ignored(p, false) || !d.Type().IsRegular() {
			return nil
		}
		files = append(files, p)
		return nil
	}
	if st, err := r.Stat("."); err == nil {
		linked[fileID(st)] = "."
	}
	err := fs.WalkDir(r.FS(), ".", visit)
	return files, err
}

// fileID identifies a file by device and inode (zero where the platform
// does not say).
func fileID(st fs.FileInfo) [2]uint64 {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return [2]uint64{uint64(sys.Dev), sys.Ino}
	}
	return [2]uint64{}
}

// loadFile decodes one blob stream file.
func loadFile(ctx context.Context, r *os.Root, rel string, o loadOptions) (*DeclarativeConfig, error) {
	packages := o.packages
	f, err := r.Open(rel)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", rel, err)
	}
	defer f.Close()
	var read FileRead
	if o.fileReads != nil {
		st, err := f.Stat()
		if err != nil {
			return nil, fmt.Errorf("load %s: %w", rel, err)
		}
		read = FileRead{File: rel, Size: st.Size(), ModTime: st.ModTime()}
	}
	var in io.Reader = f
	if packages != nil {
		data, err := readAll(f)
		if err == nil {
			err = checkNUL(data)
		}
		if err != nil {
			return nil, fmt.Errorf("load %s: %w", rel, err)
		}
		if !mayHold(data, packages) {
			return &DeclarativeConfig{}, nil
		}
		in = bytes.NewReader(data)
	}
	cfg := &DeclarativeConfig{}
	var spans *[]Span
	if o.fileReads != nil {
		spans = &read.Spans
	}
	err = decodeStreamSpans(in, false, func(blob json.RawMessage, index int) error { // addBlob copies what it keeps
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := addBlob(cfg, r, blob, Origin{File: rel, Index: index}, o.lean, false); err != nil {
			return &blobError{err: fmt.Errorf("load %s: blob #%d: %w", rel, index, err)}
		}
		return nil
	}, spans)
	if err != nil {
		var be *blobError
		if errors.As(err, &be) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		return nil, fmt.Errorf("load %s: %w", rel, err)
	}
	if o.fileReads != nil {
		if len(read.Spans) == 0 {
			read.Spans = nil
		}
		o.fileReads(read)
	}
	if packages != nil {
		cfg.keepPackages(packages)
	}
	return cfg, nil
}

// blobError marks an error that already names its file and blob.
type blobError struct{ err error }

func (e *blobError) Error() string { return e.err.Error() }

func (e *blobError) Unwrap() error { return e.err }

// metaKeys reads the schema, package and name keys of a blob. Keys are
// matched case-insensitively (as JSON decoding into the typed blobs does),
// so two keys that fold to the same one are ambiguous and refused. Only
// the top level is scanned and only those three values are decoded, which
// keeps this cheap for large bundle blobs.
func metaKeys(blob json.RawMessage) (Meta, error) {
	m, _, err := metaKeysAt(blob, 0)
	return m, err
}

// metaKeysAt is metaKeys for the object that starts at data[i], which may
// be followed by more input; it also returns where the object ends.
func metaKeysAt(data []byte, i int) (Meta, int, error) {
	m := Meta{}
	var seen [3]string
	var has [3]bool
	end, err := jsonscan.ObjectFieldsAt(data, i, func(key, val []byte) error {
		var idx int
		var dst *string
		switch {
		case len(key) == 6 && bytes.EqualFold(key, []byte("schema")):
			idx, dst = 0, &m.Schema
		case len(key) == 7 && bytes.EqualFold(key, []byte("package")):
			idx, dst = 1, &m.Package
		case len(key) == 4 && bytes.EqualFold(key, []byte("name")):
			idx, dst = 2, &m.Name
		default:
			return nil
		}
		if has[idx] {
			a, b := seen[idx], string(key)
			if b < a {
				a, b = b, a
			}
			return fmt.Errorf("duplicate keys %q and %q", a, b)
		}
		has[idx], seen[idx] = true, string(key)
		if err := json.Unmarshal(val, dst); err != nil {
			return fmt.Errorf("key %q: must be a string", key)
		}
		return nil
	})
	if errors.Is(err, jsonscan.ErrSyntax) {
		return Meta{}, 0, errors.New("decode blob: malformed JSON object")
	}
	if err != nil {
		return Meta{}, 0, err
	}
	if m.Schema == "" {
		return Meta{}, 0, errors.New("missing root schema field")
	}
	return m, end, nil
}

// addBlob decodes one blob into cfg; lean is WithLeanBundles. handed
// says that blob is the caller's to give (WithBlob's raw): a bundle's
// property values may then point into it, unless lean, where they are
// all that stays of a blob mostly made of objects.
func addBlob(cfg *DeclarativeConfig, r *os.Root, blob json.RawMessage, origin Origin, lean, handed bool) error {
	// A bundle blob of the plain shape is decoded in one walk: its only
	// keys are the exact field names, each once, so its "schema",
	// "package" and "name" are what metaKeys would read.
	b, plain := decodePlainBundle(blob)
	var meta Meta
	if plain && b.Schema == SchemaBundle {
		meta = Meta{Schema: b.Schema, Package: b.Package, Name: b.Name}
	} else {
		plain = false
		var err error
		if meta, err = metaKeys(blob); err != nil {
			return err
		}
	}
	switch meta.Schema {
	case SchemaPackage:
		var p Package
		if err := json.Unmarshal(blob, &p); err != nil {
			return fmt.Errorf("decode %s %q: %w", meta.Schema, meta.Name, err)
		}
		p.Origin = origin
		cfg.Packages = append(cfg.Packages, p)
	case SchemaChannel:
		var c Channel
		if err := json.Unmarshal(blob, &c); err != nil {
			return fmt.Errorf("decode %s %q: %w", meta.Schema, meta.Name, err)
		}
		c.Origin = origin
		cfg.Channels = append(cfg.Channels, c)
	case SchemaBundle:
		if !plain {
			b = Bundle{}
			if err := json.Unmarshal(blob, &b); err != nil {
				return fmt.Errorf("decode %s %q: %w", meta.Schema, meta.Name, err)
			}
		}
		b.Origin = origin
		if err := resolveBundleObjects(&b, r, origin.File, lean); err != nil {
			return fmt.Errorf("%s %q: %w", meta.Schema, meta.Name, err)
		}
		if plain && (lean || !handed) {
			// They alias blob: a stream reuses it, and a lean bundle
			// would keep alive the objects it dropped.
			ownValues(b.Properties)
		}
		cfg.Bundles = append(cfg.Bundles, b)
	case SchemaDeprecations:
		var d Deprecation
		if err := json.Unmarshal(blob, &d); err != nil {
			return fmt.Errorf("decode %s for package %q: %w", meta.Schema, meta.Package, err)
		}
		d.Origin = origin
		cfg.Deprecations = append(cfg.Deprecations, d)
	default:
		meta.Blob = append(json.RawMessage(nil), blob...)
		meta.Origin = origin
		cfg.Others = append(cfg.Others, meta)
	}
	return nil
}
