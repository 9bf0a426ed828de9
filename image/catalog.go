package image

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/operator-catalog/olmcat/internal/tempdir"
)

// Extracted is the catalog (or bundle) of an image, extracted into a
// temporary directory. Close removes the directory.
type Extracted struct {
	*Catalog
	// Pulled is the image it came from.
	Pulled *Pulled
	// Root is the temporary directory standing for the image root.
	Root string
	// Local is the extracted catalog: the configs directory or the db
	// file below Root (Root itself for bundles, which hold manifests/ and
	// metadata/).
	Local string
	// FS, set only for a bundle extracted into memory
	// (WithBundleInMemory), holds its manifests/ and metadata/; Root and
	// Local are empty then.
	FS  fs.FS
	dir *tempdir.Dir // holds Root; marked as this process's
}

// Close removes the temporary directory.
func (u *Extracted) Close() error {
	if u == nil {
		return nil
	}
	err := u.Pulled.Close()
	if u.dir != nil {
		return errors.Join(err, u.dir.Remove())
	}
	if u.Root == "" {
		return err
	}
	return errors.Join(err, os.RemoveAll(u.Root))
}

// WithPreferSQLite makes an image with both catalog labels read as its
// sqlite database (what migrate wants) unless WithSource says otherwise.
func WithPreferSQLite(b bool) Option { return func(o *options) { o.preferSQLite = b } }

// WithTempDir creates the extraction directory inside dir (default
// os.TempDir()).
func WithTempDir(dir string) Option { return func(o *options) { o.tempDir = dir } }

// ExtractCatalog pulls ref, finds its catalog from its labels
// (FindCatalog) and extracts only that catalog (or, for a bundle image,
// its manifests/ and metadata/ dirs) into a new temporary directory,
// within the options' Limits (DefaultLimits unless WithLimits). On error
// nothing is left behind.
func ExtractCatalog(ctx context.Context, ref string, opts ...Option) (*Extracted, error) {
	o := makeOptions(opts)
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, o.limits.Timeout)
	defer cancel()
	p, err := pull(ctx, ref, o)
	if err != nil {
		return nil, timeLimit(parent, err, ref, o.limits)
	}
	e, err := p.extractCatalog(ctx)
	return e, timeLimit(parent, err, ref, o.limits)
}

func (p *Pulled) extractCatalog(ctx context.Context) (u *Extracted, err error) {
	cfg, err := p.Image.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("image %s: read config: %w", p.Ref, err)
	}
	cat, err := FindCatalog(p.Ref, cfg.Config.Labels, p.opts.source, p.opts.preferSQLite)
	if err != nil {
		return nil, err
	}
	wanted := []string{cat.Path}
	if cat.Kind == KindBundle {
		wanted = []string{"manifests", "metadata"}
		if p.opts.bundleInMemory > 0 {
			f := newFlattener("", wanted, p.opts.limits)
			f.mem = newMemTree(p.opts.bundleInMemory)
			err := p.extract(ctx, f)
			if err == nil {
				f.mem.finish()
				return &Extracted{Catalog: cat, Pulled: p, FS: f.mem}, nil
			}
			if !errors.Is(err, errNotInMemory) {
				return nil, err
			}
		}
	}
	tmp, err := newTempDir(p.opts.tempDir, extractPrefix, p.opts.note)
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", p.Ref, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Remove()
		}
	}()
	// The image root is a folder of the marked directory: the owner
	// marker is no file of the image.
	root := filepath.Join(tmp.Path, "root")
	if err := os.Mkdir(root, 0o700); err != nil {
		return nil, fmt.Errorf("image %s: %w", p.Ref, err)
	}
	if err := p.Extract(ctx, root, wanted); err != nil {
		return nil, err
	}
	u = &Extracted{Catalog: cat, Pulled: p, Root: root, Local: root, dir: tmp}
	if cat.Kind == KindBundle {
		return u, nil
	}
	u.Local = filepath.Join(root, filepath.FromSlash(cat.Path))
	st, err := os.Stat(u.Local)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("image %s: label %s=%s names a path the image does not contain; %s",
			p.Ref, cat.Label, cat.Labels[cat.Label], describeLabels(cat.Labels))
	}
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", p.Ref, err)
	}
	if want := cat.Kind == KindConfigs; st.IsDir() != want {
		kind := map[bool]string{true: "a directory", false: "a file"}[want]
		return nil, fmt.Errorf("image %s: label %s=%s: want %s in the image", p.Ref, cat.Label, cat.Labels[cat.Label], kind)
	}
	return u, nil
}

// Extract flattens the image's layers (whiteouts and opaque directories
// honoured, the topmost entry of a path winning) and writes only the
// entries at or below the wanted image paths into root, through the layer
// cache, within the options' Limits (a *LimitError names the layer and
// entry). Entries that climb out of the image root, and symlinks or
// hardlinks that resolve outside the wanted paths (absolute symlinks
// included), are refused with an error naming the layer and entry.
func (p *Pulled) Extract(ctx context.Context, root string, wanted []string) error {
	return p.extract(ctx, newFlattener(root, wanted, p.opts.limits))
}

// extract applies the image's layers to f, top first.
func (p *Pulled) extract(ctx context.Context, f *flattener) error {
	layers, err := p.Image.Layers()
	if err != nil {
		return fmt.Errorf("image %s: layers: %w", p.Ref, err)
	}
	var cache *layerCache
	if p.opts.cacheDir != "" && !p.local {
		var ok bool
		cache, ok, err = p.opts.session.layerCache(p.opts)
		if !ok {
			cache, err = openLayerCache(p.opts.cacheDir, p.opts.note)
			defer cache.close()
		}
		if err != nil {
			return err
		}
	}
	if prog := p.opts.progress; prog != nil {
		var total int64
		for _, l := range layers {
			if n, err := l.Size(); err == nil {
				total += n
			}
		}
		prog.Start(total)
		defer prog.Done()
	}
	for i := len(layers) - 1; i >= 0; i-- {
		if err := p.layer(ctx, f, cache, layers[i], i); err != nil {
			return err
		}
	}
	return f.checkLinks()
}

// layer applies layers[i] to f.
func (p *Pulled) layer(ctx context.Context, f *flattener, cache *layerCache, l v1.Layer, i int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d, _ := l.Digest()
	desc := fmt.Sprintf("%d (%s) of %s", i+1, d, p.Ref)
	m := &meter{ctx: ctx, maxRatio: p.opts.limits.MaxRatio, timeout: p.opts.limits.Timeout}
	r, finish, err := cache.openLayer(l, m, p.opts.progress, p.opts.note)
	if err != nil {
		return fmt.Errorf("image %s: %w", p.Ref, err)
	}
	lerr := f.layer(desc, r)
	if ferr := finish(); lerr == nil && ferr != nil {
		lerr = fmt.Errorf("image %s: %w", p.Ref, ferr)
	}
	var le *LimitError
	if errors.As(lerr, &le) {
		le.Image = p.Ref
		if le.Layer == "" {
			le.Layer = desc
		}
		return le
	}
	return lerr
}
