package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/migrate"
	"github.com/operator-catalog/olmcat/registry/source"
	"github.com/spf13/cobra"
)

func newRenderCmd() *cobra.Command {
	var output string
	var noDeprecationWarning bool
	var imgFlags *imageFlags
	var migrateLevel string
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
			format, err := declcfg.ParseFormat(output)
			if err != nil {
				return usageError(err)
			}
			if l := migrate.Level(migrateLevel); l != migrate.MigrateLevelNone && l != migrate.MigrateLevelCSVMetadata {
				return usageError(fmt.Errorf("unknown --migrate-level %q (want %s or %s)", migrateLevel, migrate.MigrateLevelNone, migrate.MigrateLevelCSVMetadata))
			}
			inputs := make([]renderInput, len(args))
			for i, arg := range args {
				in, err := source.Detect(arg)
				if err != nil {
					return &exitError{code: exitInvalid, err: fmt.Errorf("render %s: %w", arg, err)}
				}
				local, unpacked, err := imgFlags.localInput(cmd.Context(), in, false, cmd.ErrOrStderr())
				if err != nil {
					return err
				}
				defer unpacked.Close()
				inputs[i] = renderInput{Input: local, name: arg, unpacked: unpacked, migrateLevel: migrateLevel}
			}
			if len(inputs) == 1 && inputs[0].Kind == source.KindSQLite {
				// A lone sqlite index is streamed package by package
				// instead of being held in memory for merging.
				return renderSQLite(cmd, inputs[0].name, inputs[0].Ref, format, noDeprecationWarning)
			}
			if len(inputs) == 1 && inputs[0].Kind == source.KindDeclcfg {
				if _, _, isBundle := inputs[0].bundleDir(); !isBundle {
					// A lone directory is streamed package by package.
					w := bufio.NewWriterSize(cmd.OutOrStdout(), 256*1024)
					if err := declcfg.WriteDirStream(cmd.Context(), w, inputs[0].Ref, format); err != nil {
						return &exitError{code: exitInvalid, err: err}
					}
					return w.Flush()
				}
			}
			merged := &declcfg.DeclarativeConfig{}
			for _, in := range inputs {
				cfg, err := loadRenderInput(cmd.Context(), in, cmd.ErrOrStderr(), noDeprecationWarning)
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
	cmd.Flags().StringVarP(&output, "output", "o", string(declcfg.FormatJSON), "output format: json or yaml")
	cmd.Flags().BoolVar(&noDeprecationWarning, "no-deprecation-warning", false, "do not print the sqlite deprecation warning")
	cmd.Flags().StringVar(&migrateLevel, "migrate-level", string(migrate.MigrateLevelNone), "for bundles: "+string(migrate.MigrateLevelCSVMetadata)+" replaces the olm.bundle.object properties with olm.csv.metadata")
	imgFlags = addImageFlags(cmd.Flags(), true)
	return cmd
}

// renderInput is one render argument after images were pulled: Input
// is local, name is the argument as given (for messages), unpacked the
// extracted image if it was one.
type renderInput struct {
	source.Input
	name     string
	unpacked *image.Extracted
	// migrateLevel applies to bundles (opm's --migrate-level).
	migrateLevel string
	// migrateOptions apply to the conversion of a sqlite index.
	migrateOptions []migrate.Option
}

// bundleDir returns the directory holding a bundle's manifests/ and
// metadata/ and the bundle image reference ("" for a directory) when the
// input is a bundle image or a bundle directory.
func (in renderInput) bundleDir() (dir, ref string, ok bool) {
	if in.unpacked != nil {
		if in.unpacked.Kind != image.KindBundle {
			return "", "", false
		}
		return in.unpacked.Root, in.unpacked.Pulled.Ref, true
	}
	if in.Kind != source.KindDeclcfg {
		return "", "", false
	}
	for _, sub := range []string{"manifests", "metadata"} {
		if st, err := os.Stat(filepath.Join(in.Ref, sub)); err != nil || !st.IsDir() {
			return "", "", false
		}
	}
	return in.Ref, "", true
}

// renderBundle renders a bundle as opm render does: one olm.bundle blob.
func renderBundle(dir, ref string, in renderInput, stderr io.Writer) (*declcfg.DeclarativeConfig, error) {
	b, _, err := declcfg.BundleFromFS(os.DirFS(dir),
		declcfg.WithBundleImage(ref),
		declcfg.WithCSVMetadata(in.migrateLevel == string(migrate.MigrateLevelCSVMetadata)),
		declcfg.WithBundleWarnings(func(msg string) { fmt.Fprintln(stderr, "warning:", msg) }))
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", in.name, err)
	}
	return &declcfg.DeclarativeConfig{Bundles: []declcfg.Bundle{b}}, nil
}

// loadRenderInput loads one render argument. Directories are declarative
// config trees; a legacy sqlite index is converted like olmcat migrate
// does (deprecation warning and a summary of repairs and drops on stderr);
// any other regular file is one blob stream (its refs resolved against its
// own directory). Other input kinds plug in here.
func loadRenderInput(ctx context.Context, in renderInput, stderr io.Writer, noDeprecationWarning bool) (*declcfg.DeclarativeConfig, error) {
	arg := in.Ref
	if dir, image, ok := in.bundleDir(); ok {
		return renderBundle(dir, image, in, stderr)
	}
	switch in.Kind {
	case source.KindDeclcfg:
		return declcfg.LoadDir(ctx, arg)
	case source.KindSQLite:
		if !noDeprecationWarning {
			warnDeprecated(ctx, stderr, in.name, arg)
		}
		cfg, rep, err := migrate.Load(ctx, arg, in.migrateOptions...)
		summarizeConversion(stderr, "render", in.name, rep)
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", in.name, err)
		}
		return cfg, nil
	case source.KindDeclcfgFile:
		cfg, err := declcfg.LoadFile(ctx, filepath.Dir(arg), filepath.Base(arg))
		if err != nil {
			return nil, err
		}
		if len(cfg.Packages)+len(cfg.Channels)+len(cfg.Bundles)+len(cfg.Deprecations)+len(cfg.Others) == 0 {
			// Rendering it would print nothing and succeed: a truncated
			// or wrong file would go unnoticed.
			return nil, fmt.Errorf("render %s: the file holds no blob (empty, or only whitespace or comments)", in.name)
		}
		return cfg, nil
	default:
		return nil, fmt.Errorf("render %s: a %s catalog cannot be rendered", arg, in.Kind)
	}
}

// summarizeConversion prints the one-line summary of the repairs, drops
// and notes of a sqlite index converted by verb (nothing when there are
// none, or no report).
func summarizeConversion(stderr io.Writer, verb, name string, rep *migrate.Report) {
	if rep != nil && len(rep.Repairs)+len(rep.Drops)+len(rep.Notes) > 0 {
		fmt.Fprintf(stderr, "%s %s: %d repairs, %d drops, %d notes; run olmcat migrate with --report for the details\n",
			verb, name, len(rep.Repairs), len(rep.Drops), len(rep.Notes))
	}
}
