package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/legacy"
	"github.com/operator-catalog/olmcat/migrate"
	"github.com/spf13/cobra"
)

func newRenderCmd() *cobra.Command {
	var output string
	var noDeprecationWarning bool
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
			if len(args) == 1 {
				// A lone sqlite index is streamed package by package
				// instead of being held in memory for merging.
				if isDB, _ := legacy.IsSQLiteFile(args[0]); isDB {
					return renderSQLite(cmd, args[0], format, noDeprecationWarning)
				}
			}
			merged := &declcfg.DeclarativeConfig{}
			for _, arg := range args {
				cfg, err := loadRenderInput(cmd.Context(), arg, cmd.ErrOrStderr(), noDeprecationWarning)
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
	return cmd
}

// loadRenderInput loads one render argument. Directories are declarative
// config trees; a legacy sqlite index is converted like olmcat migrate
// does (deprecation warning and a summary of repairs and drops on stderr);
// any other regular file is one blob stream (its refs resolved against its
// own directory). Other input kinds plug in here.
func loadRenderInput(ctx context.Context, arg string, stderr io.Writer, noDeprecationWarning bool) (*declcfg.DeclarativeConfig, error) {
	st, err := os.Stat(arg)
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", arg, err)
	}
	if st.IsDir() {
		return declcfg.LoadFS(ctx, arg)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("render %s: not a directory or regular file", arg)
	}
	if isDB, err := legacy.IsSQLiteFile(arg); err != nil {
		return nil, fmt.Errorf("render %s: %w", arg, err)
	} else if isDB {
		if !noDeprecationWarning {
			legacy.WarnDeprecated(stderr, arg)
		}
		cfg, rep, err := migrate.Load(ctx, arg)
		if rep != nil && len(rep.Repairs)+len(rep.Drops)+len(rep.Notes) > 0 {
			fmt.Fprintf(stderr, "render %s: %d repairs, %d drops, %d notes; run olmcat migrate with --report for the details\n",
				arg, len(rep.Repairs), len(rep.Drops), len(rep.Notes))
		}
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", arg, err)
		}
		return cfg, nil
	}
	return declcfg.LoadFile(ctx, filepath.Dir(arg), filepath.Base(arg))
}
