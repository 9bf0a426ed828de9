//go:build !slim

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/template"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/operator-catalog/olmcat/bundle"
	"github.com/operator-catalog/olmcat/cmd/olmcat/internal/report"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/migrate"
)

func newRenderCmd(img *imageFlags) *cobra.Command {
	f := &renderFlags{img: img}
	cmd := &cobra.Command{
		Use:   "render <dir|file|index.db|image|bundle-dir>...",
		Short: "Print the blobs of declarative configs as one stream",
		Long: `Render loads each argument (a declarative config directory, or a single
JSON/YAML blob file) and writes all blobs as one stream on stdout, in opm's
order and format (JSON indented by four spaces, or YAML documents).
Bundle objects stored by reference are inlined. A legacy sqlite index
database is converted as olmcat migrate converts it (see MIGRATION.md).
An image reference is pulled (catalog images render their catalog); a
bundle image or a bundle directory (manifests/ and metadata/) renders as
the olm.bundle blob opm render gives, image field as typed.`,
		Example: `  olmcat render ./catalog > catalog.json
  olmcat render ./a ./b -o yaml
  olmcat render index.db > catalog.json
  olmcat render registry.example.com/ns/etcd-bundle:v0.9.2
  olmcat render ./bundles/etcd.0.9.2`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := declcfg.ParseFormat(f.output)
			if err != nil {
				return usageError(err)
			}
			migrateLevel, err := renderMigrateLevel(cmd, f.migrateAll, f.migrateLevel)
			if err != nil {
				return err
			}
			tmpl, err := parseImageRefTemplate(f.imageRefTemplate)
			if err != nil {
				return usageError(err)
			}
			inputs := make([]renderInput, len(args))
			for i, arg := range args {
				in, err := f.img.resolve(cmd.Context(), arg, input.Either, "render", cmd.ErrOrStderr())
				if err != nil {
					return inputError(err, func(err error) error {
						return &exitError{code: exitInvalid, err: fmt.Errorf("render %s: %w", arg, err)}
					})
				}
				defer in.Close()
				inputs[i] = renderInput{Input: in, name: arg, migrateLevel: migrateLevel, imageRefTemplate: tmpl,
					migrateOptions: []migrate.Option{migrate.WithMigrateLevel(migrate.Level(migrateLevel))}, imgArgs: imageFlagArgs(cmd.Flags())}
			}
			if len(inputs) == 1 && inputs[0].Kind == input.KindSQLite {
				// A lone sqlite index is streamed package by package
				// instead of being held in memory for merging.
				return renderSQLite(cmd, inputs[0].name, inputs[0].Path, format, f.noDeprecationWarning, inputs[0].migrateOptions...)
			}
			if len(inputs) == 1 && inputs[0].Kind == input.KindDeclcfg {
				// A lone directory is streamed package by package.
				w := bufio.NewWriterSize(cmd.OutOrStdout(), 256*1024)
				if err := streamDir(cmd.Context(), w, inputs[0].Path, format, migrateLevel); err != nil {
					return &exitError{code: exitInvalid, err: err}
				}
				return w.Flush()
			}
			merged := &declcfg.DeclarativeConfig{}
			for _, in := range inputs {
				cfg, err := loadRenderInput(cmd.Context(), in, cmd.ErrOrStderr(), f.noDeprecationWarning)
				if err != nil {
					return &exitError{code: exitInvalid, err: err}
				}
				merged.Merge(cfg)
			}
			w := bufio.NewWriterSize(cmd.OutOrStdout(), 256*1024)
			if err := declcfg.WriteStream(w, merged, format); err != nil {
				return err
			}
			return w.Flush()
		},
	}
	f.register(cmd.Flags())
	takesImages(cmd, imageSourceFlags)
	return cmd
}

// renderFlags are the flags of olmcat render.
type renderFlags struct {
	output, migrateLevel, imageRefTemplate string
	migrateAll, noDeprecationWarning       bool
	img                                    *imageFlags
}

func (f *renderFlags) register(fs *pflag.FlagSet) {
	fs.StringVarP(&f.output, "output", "o", string(declcfg.FormatJSON), "output format: json or yaml")
	fs.BoolVar(&f.noDeprecationWarning, "no-deprecation-warning", false, "do not print the sqlite deprecation warning")
	fs.StringVar(&f.migrateLevel, "migrate-level", string(migrate.MigrateLevelNone), "for bundles: "+string(migrate.MigrateLevelCSVMetadata)+" replaces the olm.bundle.object properties with olm.csv.metadata")
	fs.BoolVar(&f.migrateAll, "migrate", false, "run every migration on rendered bundles (--migrate-level "+string(migrate.MigrateLevelCSVMetadata)+")")
	fs.StringVar(&f.imageRefTemplate, "alpha-image-ref-template", "", "image reference of bundle directories (which have none), as a Go template of {{.Package}}, {{.Name}} and {{.Version}}")
}

// renderMigrateLevel is the migrate level --migrate-level or --migrate
// (every migration) asks for.
func renderMigrateLevel(cmd *cobra.Command, all bool, level string) (string, error) {
	if all {
		if cmd.Flags().Changed("migrate-level") {
			return "", usageError(errors.New("--migrate and --migrate-level are mutually exclusive"))
		}
		level = string(migrate.MigrateLevelCSVMetadata) // the last migration
	}
	if l := migrate.Level(level); l != migrate.MigrateLevelNone && l != migrate.MigrateLevelCSVMetadata {
		return "", usageError(fmt.Errorf("unknown --migrate-level %q (want %s or %s)", level, migrate.MigrateLevelNone, migrate.MigrateLevelCSVMetadata))
	}
	return level, nil
}

// parseImageRefTemplate parses --alpha-image-ref-template (nil for "").
func parseImageRefTemplate(text string) (*template.Template, error) {
	if text == "" {
		return nil, nil
	}
	t, err := template.New("image-ref").Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("--alpha-image-ref-template: %w", err)
	}
	return t, nil
}

// renderInput is one render argument after images were pulled: Input
// is local (its Path), name is the argument as given (for messages).
type renderInput struct {
	*input.Input
	name string
	// migrateLevel applies to bundles (opm's --migrate-level).
	migrateLevel string
	// imageRefTemplate names a bundle directory's image (opm's
	// --alpha-image-ref-template); nil leaves it empty.
	imageRefTemplate *template.Template
	// migrateOptions apply to the conversion of a sqlite index.
	migrateOptions []migrate.Option
	// imgArgs are the image flags in use, for suggested commands.
	imgArgs string
}

// bundleDir returns the directory holding a bundle's manifests/ and
// metadata/ and the bundle image reference ("" for a directory) when the
// input is a bundle image or a bundle directory (resolved wanting
// bundles).
func (in renderInput) bundleDir() (dir, ref string, ok bool) {
	if in.Kind != input.KindBundle {
		return "", "", false
	}
	return in.Path, in.Image, true
}

// renderBundle renders a bundle as opm render does: one olm.bundle blob.
func renderBundle(dir, ref string, in renderInput, stderr io.Writer) (*declcfg.DeclarativeConfig, error) {
	opts := []bundle.Option{
		bundle.WithCSVMetadata(in.migrateLevel == string(migrate.MigrateLevelCSVMetadata)),
		bundle.WithWarnings(func(msg string) { fmt.Fprintln(stderr, "warning:", msg) }),
	}
	b, _, err := bundle.FromFS(os.DirFS(dir), append(opts, bundle.WithImage(ref))...)
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", in.name, err)
	}
	if ref == "" && in.imageRefTemplate != nil {
		// The bundle's own values name its image, which then counts as
		// the bundle image (relatedImages), as for an image input.
		var sb strings.Builder
		pv, _ := declcfg.FirstPackageOf(b.Properties)
		data := struct{ Package, Name, Version string }{b.Package, b.Name, pv.Version}
		if err := in.imageRefTemplate.Execute(&sb, data); err != nil {
			return nil, fmt.Errorf("render %s: --alpha-image-ref-template: %w", in.name, err)
		}
		opts = append(opts, bundle.WithWarnings(func(string) {})) // warned once above
		if b, _, err = bundle.FromFS(os.DirFS(dir), append(opts, bundle.WithImage(sb.String()))...); err != nil {
			return nil, fmt.Errorf("render %s: %w", in.name, err)
		}
	}
	return &declcfg.DeclarativeConfig{Bundles: []declcfg.Bundle{b}}, nil
}

// loadRenderInput loads one render argument. Directories are declarative
// config trees; a legacy sqlite index is converted like olmcat migrate
// does (deprecation warning and a summary of repairs and drops on stderr);
// any other regular file is one blob stream (its refs resolved against its
// own directory). Other input kinds plug in here.
func loadRenderInput(ctx context.Context, in renderInput, stderr io.Writer, noDeprecationWarning bool) (*declcfg.DeclarativeConfig, error) {
	arg := in.Path
	if dir, image, ok := in.bundleDir(); ok {
		return renderBundle(dir, image, in, stderr)
	}
	switch in.Kind {
	case input.KindDeclcfg:
		cfg, err := declcfg.LoadDir(ctx, arg)
		if err != nil {
			return nil, err
		}
		return cfg, migrateRendered(cfg, in.migrateLevel)
	case input.KindSQLite:
		if !noDeprecationWarning {
			warnDeprecated(ctx, stderr, in.name, arg, in.imgArgs)
		}
		cfg, rep, err := migrate.Load(ctx, arg, in.migrateOptions...)
		report.NameRemedies(rep, err)
		report.WriteConversionSummary(stderr, "render", in.name, rep)
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", in.name, err)
		}
		return cfg, nil
	case input.KindDeclcfgFile:
		cfg, err := declcfg.LoadDir(ctx, filepath.Dir(arg), declcfg.WithFile(filepath.Base(arg)))
		if err != nil {
			return nil, err
		}
		if len(cfg.Packages)+len(cfg.Channels)+len(cfg.Bundles)+len(cfg.Deprecations)+len(cfg.Others) == 0 {
			// Rendering it would print nothing and succeed: a truncated
			// or wrong file would go unnoticed.
			return nil, fmt.Errorf("render %s: the file holds no blob (empty, or only whitespace or comments)", in.name)
		}
		return cfg, migrateRendered(cfg, in.migrateLevel)
	default:
		return nil, fmt.Errorf("render %s: a %s catalog cannot be rendered", arg, in.Kind)
	}
}

// streamDir writes every blob of the declarative config directory root to
// w in format f: the same bytes as WriteStream of LoadDir(root), without
// holding the catalog (declcfg.EachPackage): a malformed file fails
// before anything is written, a blob that fails only when fully decoded
// stops the output at its package.
func streamDir(ctx context.Context, w io.Writer, root string, f declcfg.Format, migrateLevel string) error {
	return declcfg.EachPackage(ctx, root, func(_ string, part *declcfg.DeclarativeConfig) error {
		if err := migrateRendered(part, migrateLevel); err != nil {
			return err
		}
		return declcfg.WriteStream(w, part, f)
	})
}

// migrateRendered applies the migrations up to level to a rendered
// catalog, as opm render does to every input.
func migrateRendered(cfg *declcfg.DeclarativeConfig, level string) error {
	if level != string(migrate.MigrateLevelCSVMetadata) {
		return nil
	}
	return declcfg.MigrateToCSVMetadata(cfg)
}

// refuseBundleInput is refuseBundle for bundle images and bundle
// directories alike (a bundle has no upgrade graph, no channels).
func refuseBundleInput(in renderInput, verb string) error {
	switch {
	case in.Kind != input.KindBundle:
		return nil
	case in.Image != "":
		return refuseBundle(in.Image, verb)
	}
	return &exitError{code: exitInvalid, err: fmt.Errorf("%s %s: this is a bundle directory (manifests/ and metadata/), not a catalog; olmcat render %s prints its olm.bundle blob",
		verb, in.name, in.name)}
}
