package action

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/template"

	"github.com/operator-catalog/olmcat/bundle"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/migrate"
)

// Render writes the blobs of catalogs and bundles as one stream, as
// opm's render does: a declarative config directory or blob file as it
// is, a legacy sqlite index converted as Migrate converts it, a bundle
// (image or directory holding manifests/ and metadata/) as its olm.bundle
// blob, an image as what it holds.
type Render struct {
	Env
	Legacy Legacy
	// Refs are the inputs rendered, in order.
	Refs []string
	// MigrateLevel is the migrations applied to the rendered bundles
	// (zero: none).
	MigrateLevel migrate.Level
	// ImageRefTemplate, if set, names the image of a bundle directory
	// (which has none) from its .Package, .Name and .Version.
	ImageRefTemplate *template.Template
	// Out receives the stream, in Format.
	Out    io.Writer
	Format declcfg.Format
}

// RenderResult is what a Render did (its output is the stream).
type RenderResult struct{}

// streamBuffer is the size of the buffer in front of Out: the stream is
// written in large writes, not one per blob.
const streamBuffer = 256 * 1024

// Run resolves every input (pulling images) before rendering any. A lone
// sqlite index or directory is streamed package by package instead of
// being held in memory for merging.
func (r Render) Run(ctx context.Context) (RenderResult, error) {
	if _, err := migrate.ParseLevel(string(r.MigrateLevel)); err != nil {
		return RenderResult{}, usage("Render.MigrateLevel", err)
	}
	var inputs []*input.Input
	defer func() {
		for _, in := range inputs {
			_ = in.Close()
		}
	}()
	for _, ref := range r.Refs {
		in, err := r.resolve(ctx, ref, input.Either, false)
		if err != nil {
			return RenderResult{}, resolveError("render "+ref, err)
		}
		inputs = append(inputs, in)
	}
	return RenderResult{}, r.write(ctx, inputs)
}

// write renders the resolved inputs to Out.
func (r Render) write(ctx context.Context, inputs []*input.Input) error {
	if len(inputs) == 1 && inputs[0].Kind == input.KindSQLite {
		return r.streamSQLite(ctx, r.Refs[0], inputs[0].Path)
	}
	w := bufio.NewWriterSize(r.Out, streamBuffer)
	if len(inputs) == 1 && inputs[0].Kind == input.KindDeclcfg {
		if err := streamDir(ctx, w, inputs[0].Path, r.Format, r.csvMetadata()); err != nil {
			return err
		}
		return w.Flush()
	}
	merged := &declcfg.DeclarativeConfig{}
	for i, in := range inputs {
		cfg, err := r.Load(ctx, r.Refs[i], in)
		if err != nil {
			return err
		}
		merged.Merge(cfg)
	}
	if err := declcfg.WriteStream(w, merged, r.Format); err != nil {
		return err
	}
	return w.Flush()
}

// streamSQLite streams the conversion of the sqlite index at path (ref
// as given) to Out.
func (r Render) streamSQLite(ctx context.Context, ref, path string) error {
	r.Legacy.deprecated(ctx, ref, path)
	rep, err := migrate.Render(ctx, path, r.Out, migrate.WithMigrateLevel(r.MigrateLevel), migrate.WithFormat(r.Format))
	r.Legacy.converted(ref, rep, err)
	if err != nil {
		return fmt.Errorf("render %s: %w", ref, err)
	}
	return nil
}

// Load renders one input already resolved, ref as the caller gave it
// (for its messages), into memory: a directory is a declarative config
// tree; a sqlite index is converted (with Legacy told); any other file
// is one blob stream, its refs resolved against its own directory; a
// bundle is its olm.bundle blob. Out and Format are not used.
func (r Render) Load(ctx context.Context, ref string, in *input.Input) (*declcfg.DeclarativeConfig, error) {
	switch in.Kind {
	case input.KindBundle:
		return r.renderBundle(ref, in.Path, in.Image)
	case input.KindDeclcfg:
		cfg, err := declcfg.LoadDir(ctx, in.Path)
		if err != nil {
			return nil, err
		}
		return cfg, r.migrateRendered(cfg)
	case input.KindSQLite:
		r.Legacy.deprecated(ctx, ref, in.Path)
		cfg, rep, err := migrate.Load(ctx, in.Path, migrate.WithMigrateLevel(r.MigrateLevel))
		r.Legacy.converted(ref, rep, err)
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", ref, err)
		}
		return cfg, nil
	case input.KindDeclcfgFile:
		cfg, err := declcfg.LoadDir(ctx, filepath.Dir(in.Path), declcfg.WithFile(filepath.Base(in.Path)))
		if err != nil {
			return nil, err
		}
		if len(cfg.Packages)+len(cfg.Channels)+len(cfg.Bundles)+len(cfg.Deprecations)+len(cfg.Others) == 0 {
			// Rendering it would print nothing and succeed: a truncated
			// or wrong file would go unnoticed.
			return nil, fmt.Errorf("render %s: the file holds no blob (empty, or only whitespace or comments)", ref)
		}
		return cfg, r.migrateRendered(cfg)
	default:
		return nil, fmt.Errorf("render %s: a %s catalog cannot be rendered", in.Path, in.Kind)
	}
}

// renderBundle renders the bundle in dir (of bundle image image, "" for
// a directory) as opm render does: one olm.bundle blob.
func (r Render) renderBundle(ref, dir, image string) (*declcfg.DeclarativeConfig, error) {
	opts := []bundle.Option{
		bundle.WithCSVMetadata(r.csvMetadata()),
		bundle.WithWarnings(func(msg string) { r.log("warning: " + msg) }),
	}
	b, _, err := bundle.FromFS(os.DirFS(dir), append(opts, bundle.WithImage(image))...)
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", ref, err)
	}
	if image == "" && r.ImageRefTemplate != nil {
		// The bundle's own values name its image, which then counts as
		// the bundle image (relatedImages), as for an image input.
		var sb strings.Builder
		pv, _ := declcfg.FirstPackageOf(b.Properties)
		data := struct{ Package, Name, Version string }{b.Package, b.Name, pv.Version}
		if err := r.ImageRefTemplate.Execute(&sb, data); err != nil {
			// The option named is the one to change.
			return nil, fmt.Errorf("render %s: %w", ref, &Error{Option: "Render.ImageRefTemplate", Err: err})
		}
		opts = append(opts, bundle.WithWarnings(func(string) {})) // warned once above
		if b, _, err = bundle.FromFS(os.DirFS(dir), append(opts, bundle.WithImage(sb.String()))...); err != nil {
			return nil, fmt.Errorf("render %s: %w", ref, err)
		}
	}
	return &declcfg.DeclarativeConfig{Bundles: []declcfg.Bundle{b}}, nil
}

// csvMetadata says whether MigrateLevel replaces the olm.bundle.object
// properties of bundles with olm.csv.metadata.
func (r Render) csvMetadata() bool {
	l, _ := migrate.ParseLevel(string(r.MigrateLevel))
	return l != migrate.MigrateLevelNone
}

// migrateRendered applies the migrations of MigrateLevel to a rendered
// catalog, as opm render does to every input.
func (r Render) migrateRendered(cfg *declcfg.DeclarativeConfig) error {
	if !r.csvMetadata() {
		return nil
	}
	return declcfg.MigrateToCSVMetadata(cfg)
}

// streamDir writes every blob of the declarative config directory root to
// w in format f: the same bytes as WriteStream of LoadDir(root), without
// holding the catalog (declcfg.EachPackage): a malformed file fails
// before anything is written, a blob that fails only when fully decoded
// stops the output at its package.
func streamDir(ctx context.Context, w io.Writer, root string, f declcfg.Format, csvMetadata bool) error {
	return declcfg.EachPackage(ctx, root, func(_ string, part *declcfg.DeclarativeConfig) error {
		if csvMetadata {
			if err := declcfg.MigrateToCSVMetadata(part); err != nil {
				return err
			}
		}
		return declcfg.WriteStream(w, part, f)
	})
}

// resolveError is err of Env.resolve as a verb returns it: the errors of
// pulling as they are, for the caller to word, the others after what
// (the verb and its argument).
func resolveError(what string, err error) error {
	if pulled(err) {
		return err
	}
	return fmt.Errorf("%s: %w", what, err)
}
