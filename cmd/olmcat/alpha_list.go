//go:build !slim

package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/internal/quote"
)

// newAlphaListCmd is opm alpha list: tables of the packages, channels and
// bundles of an index, byte for byte as opm prints them.
func newAlphaListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List contents of an index (opm alpha list)",
		Long: `List the packages, channels or bundles of an index: a declarative config
directory, a legacy sqlite index, or an image of either, as the tables opm
alpha list prints.`,
	}
}

// listCommand builds one alpha list subcommand writing its table with
// write.
func listCommand(img *imageFlags, use, short string, args cobra.PositionalArgs, write func(io.Writer, action.ListResult)) *cobra.Command {
	var noWarn bool
	c := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  args,
		RunE: func(cmd *cobra.Command, args []string) error {
			l := action.List{Env: actionEnv(cmd, img, nil), Legacy: legacyHooks(cmd.ErrOrStderr(), "render", "", !noWarn), Index: args[0]}
			if len(args) > 1 {
				l.Package = args[1]
			}
			res, err := l.Run(cmd.Context())
			if err != nil {
				return actionError(err, "list")
			}
			if l.Package != "" && len(res.Packages) == 0 {
				return &exitError{code: exitInvalid, err: fmt.Errorf("package %q not found", l.Package)}
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			write(tw, res)
			return tw.Flush()
		},
	}
	c.Flags().BoolVar(&noWarn, "no-deprecation-warning", false, "do not print the sqlite deprecation warning")
	takesImages(c, imageSourceFlags)
	return c
}

func writePackages(w io.Writer, res action.ListResult) {
	fmt.Fprint(w, "NAME\tDISPLAY NAME\tDEFAULT CHANNEL\n")
	for _, r := range res.Packages {
		writeRow(w, r.Name, r.DisplayName, r.DefaultChannel)
	}
}

func writeChannels(w io.Writer, res action.ListResult) {
	fmt.Fprint(w, "PACKAGE\tCHANNEL\tHEAD\n")
	for _, r := range res.Channels {
		head := r.Head
		if r.HeadErr != nil {
			head = "ERROR: " + r.HeadErr.Error()
		}
		writeRow(w, r.Package, r.Channel, head)
	}
}

func writeBundles(w io.Writer, res action.ListResult) {
	fmt.Fprint(w, "PACKAGE\tCHANNEL\tBUNDLE\tREPLACES\tSKIPS\tSKIP RANGE\tIMAGE\n")
	for _, r := range res.Bundles {
		writeRow(w, r.Package, r.Channel, r.Bundle, r.Replaces, strings.Join(r.Skips, ","), r.SkipRange, r.Image)
	}
}

// writeRow writes one table row: the cells tab-separated, each quoted
// when it could forge output (a name with a newline, a tab or an escape
// sequence; internal/quote).
func writeRow(w io.Writer, cells ...string) {
	for i, c := range cells {
		cells[i] = quote.Name(c)
	}
	fmt.Fprintln(w, strings.Join(cells, "\t"))
}
