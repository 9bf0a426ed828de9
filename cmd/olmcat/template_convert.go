//go:build !slim

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/cmd/olmcat/internal/report"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/template"
	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/migrate"
)

func newConvertTemplateCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "convert-template",
		Short: "Write a catalog as a basic or substitutes template",
		Long: `Convert-template writes the blobs of a catalog as a template, as opm alpha
convert-template does: basic reduces every bundle to its image,
substitutes keeps the blobs whole and adds an empty substitutions list.
The catalog is a blob file (stdin without argument or with "-", blobs kept
in file order), a declarative config directory, a catalog image, or a
legacy sqlite index (converted as olmcat migrate converts it, with the
deprecation warning); the last three are read in opm's write order.`,
	}
}

// newConvertTemplateTypeCmd is convert-template basic or substitutes.
func newConvertTemplateTypeCmd(img *imageFlags, t template.Type) *cobra.Command {
	var output string
	var noDeprecationWarning bool
	cmd := &cobra.Command{
		Use:   string(t) + " [<catalog> | -]",
		Short: "Write a catalog as a " + string(t) + " template",
		Example: `  olmcat alpha convert-template basic catalog/foo/catalog.json -o yaml > foo-template.yaml
  olmcat alpha convert-template substitutes ./catalog
  olmcat alpha convert-template basic index.db`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageError(fmt.Errorf("accepts at most 1 arg(s), received %d", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "json" && output != "yaml" {
				return usageError(fmt.Errorf("invalid --output value %q, expected (json|yaml)", output))
			}
			arg := "-"
			if len(args) == 1 {
				arg = args[0]
			}
			var buf bytes.Buffer
			err := withCatalogStream(cmd, arg, img, noDeprecationWarning, func(r io.Reader) error {
				return template.Convert(&buf, r, t, declcfg.Format(output))
			})
			if err != nil {
				return err
			}
			_, err = buf.WriteTo(cmd.OutOrStdout())
			return err
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "json", "Output format (json|yaml)")
	cmd.Flags().BoolVar(&noDeprecationWarning, "no-deprecation-warning", false, "do not print the sqlite deprecation warning")
	takesImages(cmd, imageSourceFlags)
	return cmd
}

// withCatalogStream hands fn the blobs of arg as one stream: a file (or
// stdin for "-") as it is, a directory, image or sqlite index rendered.
func withCatalogStream(cmd *cobra.Command, arg string, f *imageFlags, noWarn bool, fn func(io.Reader) error) error {
	fail := func(err error) error {
		return &exitError{code: exitInvalid, err: fmt.Errorf("converting %s: %w", arg, err)}
	}
	if arg == "-" {
		if err := fn(cmd.InOrStdin()); err != nil {
			return fail(err)
		}
		return nil
	}
	local, err := f.resolve(cmd.Context(), arg, input.Catalog, "convert-template", cmd.ErrOrStderr())
	if err != nil {
		return inputError(err, fail)
	}
	defer local.Close()
	switch local.Kind {
	case input.KindDeclcfgFile:
		fh, err := os.Open(local.Path)
		if err != nil {
			return fail(err)
		}
		defer fh.Close()
		err = fn(fh)
		if err != nil {
			return fail(err)
		}
		return nil
	case input.KindDeclcfg:
		return pipeStream(cmd.Context(), fn, fail, func(w io.Writer) error {
			return streamDir(cmd.Context(), w, local.Path, declcfg.FormatJSON, "")
		})
	case input.KindSQLite:
		if !noWarn {
			warnDeprecated(cmd.Context(), cmd.ErrOrStderr(), arg, local.Path, imageFlagArgs(cmd.Flags()))
		}
		return pipeStream(cmd.Context(), fn, fail, func(w io.Writer) error {
			rep, err := migrate.Render(cmd.Context(), local.Path, w, migrate.WithFormat(declcfg.FormatJSON))
			report.NameRemedies(rep, err)
			report.WriteConversionSummary(cmd.ErrOrStderr(), "convert-template", arg, rep)
			return err
		})
	}
	return fail(fmt.Errorf("a %s catalog cannot be converted", local.Kind))
}

// pipeStream runs write into a pipe read by fn, both concurrently.
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
