package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
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
	cmd := &cobra.Command{
		Use:   "render <dir|file|index.db>...",
		Short: "Print the blobs of declarative configs as one stream",
		Long: `Render loads each argument (a declarative config directory, or a single
JSON/YAML blob file) and writes all blobs as one stream on stdout, in opm's
order and format (JSON indented by four spaces, or YAML documents).
Bundle objects stored by reference are inlined. A legacy sqlite index
database is converted as olmcat migrate converts it (see MIGRATION.md).`,
		Example: `  olmcat render ./catalog > catalog.json
  olmcat render ./a ./b -o yaml
  olmcat render index.db > catalog.json`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := declcfg.ParseFormat(output)
			if err != nil {
				return usageError(err)
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
				inputs[i] = renderInput{Input: local, name: arg, unpacked: unpacked}
			}
			if len(inputs) == 1 && inputs[0].Kind == source.KindSQLite {
				// A lone sqlite index is streamed package by package
				// instead of being held in memory for merging.
				return renderSQLite(cmd, inputs[0].name, inputs[0].Ref, format, noDeprecationWarning)
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
	imgFlags = addImageFlags(cmd.Flags(), true)
	return cmd
}

// renderInput is one render argument after images were pulled: Input
// is local, name is the argument as given (for messages), unpacked the
// extracted image if it was one.
type renderInput struct {
	source.Input
	name     string
	unpacked *image.Unpacked
}

// loadRenderInput loads one render argument. Directories are declarative
// config trees; a legacy sqlite index is converted like olmcat migrate
// does (deprecation warning and a summary of repairs and drops on stderr);
// any other regular file is one blob stream (its refs resolved against its
// own directory). Other input kinds plug in here.
func loadRenderInput(ctx context.Context, in renderInput, stderr io.Writer, noDeprecationWarning bool) (*declcfg.DeclarativeConfig, error) {
	arg := in.Ref
	switch in.Kind {
	case source.KindDeclcfg:
		return declcfg.LoadFS(ctx, arg)
	case source.KindSQLite:
		if !noDeprecationWarning {
			warnDeprecated(stderr, in.name)
		}
		cfg, rep, err := migrate.Load(ctx, arg)
		if rep != nil && len(rep.Repairs)+len(rep.Drops)+len(rep.Notes) > 0 {
			fmt.Fprintf(stderr, "render %s: %d repairs, %d drops, %d notes; run olmcat migrate with --report for the details\n",
				in.name, len(rep.Repairs), len(rep.Drops), len(rep.Notes))
		}
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", in.name, err)
		}
		return cfg, nil
	case source.KindDeclcfgFile:
		return declcfg.LoadFile(ctx, filepath.Dir(arg), filepath.Base(arg))
	default:
		return nil, fmt.Errorf("render %s: a %s catalog cannot be rendered", arg, in.Kind)
	}
}
