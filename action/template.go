package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/operator-catalog/olmcat/bundle"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/template"
	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/internal/tempdir"
	"github.com/operator-catalog/olmcat/migrate"
)

// RenderTemplate renders a catalog template (basic, semver or
// substitutes) into a declarative config, as opm alpha render-template
// does: its bundle references, images or bundle directories, are
// rendered as Render renders them, images pulled quietly.
type RenderTemplate struct {
	Env
	// File is the template file; "" or "-" reads In (errors call it
	// <stdin>, its refs resolve against the working directory).
	File string
	In   io.Reader
	// Type is the template's type ("": detected from its schema).
	Type template.Type
	// MigrateLevel is the migrations applied to the rendered bundles:
	// only migrate.MigrateLevelCSVMetadata changes them (as opm's flag
	// does; MigrateLevelAll leaves them as they are).
	MigrateLevel migrate.Level
	// Out, when set, receives the rendered catalog in Format (json or
	// yaml), once the whole template has rendered, and the result holds
	// no Config: the bundles wait in a file of the run's scratch
	// directory meanwhile, not in memory (see template.RenderTo).
	Out    io.Writer
	Format declcfg.Format
	// StandIns, without Out, reduces each rendered bundle of Config to
	// its name, package, image and olm.package properties as it is
	// rendered: all an upgrade graph reads (see template.RenderStandIns).
	StandIns bool
}

// RenderTemplateResult is the rendered catalog, blobs in the template's
// order (nil when RenderTemplate.Out received it).
type RenderTemplateResult struct {
	Config *declcfg.DeclarativeConfig
}

// Run gets the image options first (bad ones fail before the template is
// read), reads the template and renders it.
func (r RenderTemplate) Run(ctx context.Context) (RenderTemplateResult, error) {
	level, err := migrate.ParseLevel(string(r.MigrateLevel))
	if err != nil {
		return RenderTemplateResult{}, usage("RenderTemplate.MigrateLevel", err)
	}
	scratch, err := tempdir.Scratch("olmcat-render-template-", func(dir string) { r.log(AbandonedNote(dir)) })
	if err != nil {
		return RenderTemplateResult{}, fmt.Errorf("rendering template: %w", err)
	}
	defer scratch.Remove()
	render, done, err := r.bundleRenderer(level == migrate.MigrateLevelCSVMetadata, scratch.Path)
	if err != nil {
		return RenderTemplateResult{}, err
	}
	defer done()
	data, name, root, err := r.read()
	if err != nil {
		return RenderTemplateResult{}, err
	}
	opts := []template.Option{template.WithFile(name), template.WithRefRoot(root), template.WithBundleRenderer(render)}
	if r.Type != "" {
		opts = append(opts, template.WithType(r.Type))
	}
	if r.Out != nil {
		if err := template.RenderTo(ctx, r.Out, r.Format, data, scratch.Path, opts...); err != nil {
			return RenderTemplateResult{}, fmt.Errorf("rendering template: %w", err)
		}
		return RenderTemplateResult{}, nil
	}
	renderCfg := template.Render
	if r.StandIns {
		renderCfg = template.RenderStandIns
	}
	cfg, err := renderCfg(ctx, data, opts...)
	if err != nil {
		return RenderTemplateResult{}, fmt.Errorf("rendering template: %w", err)
	}
	return RenderTemplateResult{Config: cfg}, nil
}

// read reads the template; name is what errors call it and root the
// directory its refs resolve against.
func (r RenderTemplate) read() (data []byte, name, root string, err error) {
	if r.File == "" || r.File == "-" {
		data, err = io.ReadAll(r.In)
		return data, "<stdin>", ".", err
	}
	data, err = os.ReadFile(r.File)
	if err != nil {
		return nil, "", "", fmt.Errorf("unable to open input: %w", err)
	}
	return data, r.File, filepath.Dir(r.File), nil
}

// bundleInMemory bounds the bytes of a bundle image's manifests/ and
// metadata/ that a template render extracts into memory rather than to
// disk (image.WithBundleInMemory): bundles are a few hundred kilobytes
// (OLM unpacks them into a ConfigMap, at most 1 MiB), and the renders at
// once (template.WithConcurrency) each hold at most this much.
const bundleInMemory = 8 << 20

// bundleRenderer renders the bundle references of templates: a bundle
// image is pulled (with the image options, asked for once, now) and
// rendered as Render renders it, image field as typed; a bundle
// directory (manifests/ and metadata/) renders with an empty image.
// Catalog images and other inputs are refused. The errors of a pull are
// returned as they are. A bundle image is extracted into memory when it
// is small and plain (bundleInMemory), otherwise into scratch, the run's
// own directory: each extraction sweeps the abandoned directories of its
// parent first, and the system temporary directory (often thousands of
// entries) would be listed once per bundle image. The pulls share one
// image.Session (connections, the layer cache opened once); done closes
// its idle connections.
func (e Env) bundleRenderer(csvMetadata bool, scratch string) (render template.BundleRenderer, done func(), err error) {
	var opts []image.Option
	if e.ImageOptions != nil {
		if opts, err = e.ImageOptions(); err != nil {
			return nil, nil, err
		}
	}
	sess := image.NewSession(opts...)
	opts = append(opts, image.WithTempDir(scratch), image.WithSession(sess), image.WithBundleInMemory(bundleInMemory))
	e.ImageOptions = func() ([]image.Option, error) { return opts, nil }
	warn := bundle.WithWarnings(func(msg string) { e.log("warning: " + msg) })
	return func(ctx context.Context, ref string) (*declcfg.Bundle, error) {
		in, err := e.resolve(ctx, ref, input.Bundle, true)
		var nb *input.NotBundleError
		switch {
		case errors.As(err, &nb) && nb.Kind == input.KindDeclcfg:
			return nil, fmt.Errorf("directory %s is not a bundle (no manifests/ and metadata/)", ref)
		case err != nil:
			return nil, err
		}
		defer in.Close()
		bopts := []bundle.Option{bundle.WithCSVMetadata(csvMetadata), warn}
		if in.Image != "" {
			bopts = append(bopts, bundle.WithImage(ref))
		}
		fsys := in.FS
		if fsys == nil {
			fsys = os.DirFS(in.Path)
		}
		b, _, err := bundle.FromFS(fsys, bopts...)
		return &b, err
	}, sess.Close, nil
}

// ConvertTemplate writes the blobs of a catalog as a basic or
// substitutes template, as opm alpha convert-template does (see
// template.Convert).
type ConvertTemplate struct {
	Env
	Legacy Legacy
	// Ref is the catalog: a blob file (blobs kept in file order), a
	// declarative config directory, a catalog image or a legacy sqlite
	// index (these three read in opm's write order); "-" reads In.
	Ref  string
	In   io.Reader
	Type template.Type
	// Format is the template's; Out receives it once it is whole.
	Format declcfg.Format
	Out    io.Writer
}

// ConvertTemplateResult is what a ConvertTemplate did (its output is
// the template).
type ConvertTemplateResult struct{}

// Run converts the catalog in memory and writes the template to Out.
func (c ConvertTemplate) Run(ctx context.Context) (ConvertTemplateResult, error) {
	var buf bytes.Buffer
	err := c.withStream(ctx, func(r io.Reader) error { return template.Convert(&buf, r, c.Type, c.Format) })
	if err != nil {
		return ConvertTemplateResult{}, err
	}
	_, err = buf.WriteTo(c.Out)
	return ConvertTemplateResult{}, err
}

// withStream hands fn the blobs of Ref as one stream: a file (or In for
// "-") as it is, a directory, image or sqlite index rendered.
func (c ConvertTemplate) withStream(ctx context.Context, fn func(io.Reader) error) error {
	fail := func(err error) error { return fmt.Errorf("converting %s: %w", c.Ref, err) }
	if c.Ref == "-" {
		if err := fn(c.In); err != nil {
			return fail(err)
		}
		return nil
	}
	local, err := c.resolve(ctx, c.Ref, input.Catalog, false)
	if err != nil {
		return resolveError("converting "+c.Ref, err)
	}
	defer local.Close()
	switch local.Kind {
	case input.KindDeclcfgFile:
		fh, err := os.Open(local.Path)
		if err != nil {
			return fail(err)
		}
		defer fh.Close()
		if err := fn(fh); err != nil {
			return fail(err)
		}
		return nil
	case input.KindDeclcfg:
		return pipeStream(ctx, fn, fail, func(w io.Writer) error {
			return streamDir(ctx, w, local.Path, declcfg.FormatJSON, false)
		})
	case input.KindSQLite:
		c.Legacy.deprecated(ctx, c.Ref, local.Path)
		return pipeStream(ctx, fn, fail, func(w io.Writer) error {
			rep, err := migrate.Render(ctx, local.Path, w, migrate.WithFormat(declcfg.FormatJSON))
			c.Legacy.converted(c.Ref, rep, err)
			return err
		})
	}
	return fail(fmt.Errorf("a %s catalog cannot be converted", local.Kind))
}

// pipeStream runs write into a pipe read by fn, both concurrently; fail
// words fn's error.
func pipeStream(ctx context.Context, fn func(io.Reader) error, fail func(error) error, write func(io.Writer) error) error {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(write(pw)) }()
	err := fn(pr)
	pr.CloseWithError(err)
	if err != nil {
		return fail(err)
	}
	return ctx.Err()
}
