//go:build !slim

package main

import (
	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/declcfg"
)

func newConvertCmd() *cobra.Command {
	var (
		layout, output string
		force, quiet   bool
		waitLock       *waitLockFlag
	)
	cmd := &cobra.Command{
		Use:   "convert <in-dir> <out-dir>",
		Short: "Rewrite a declarative config directory in another layout or format",
		Long: `Convert loads a declarative config directory and writes it to a new
directory in the chosen layout:

  opm      <out>/<package>/catalog.<ext>, bundle objects inline (opm migrate's layout)
  objects  <out>/<package>/<package>.<ext> with each bundle object in its own file
           under <out>/<package>/objects/<bundle>/, referenced by olm.bundle.object refs

Both directions are lossless for JSON output: opm -> objects -> opm gives the
same bytes. The output is written to a temporary directory and renamed into
place; an existing non-empty output directory is only replaced with --force.
The input is never modified.`,
		Example: `  olmcat convert ./catalog ./catalog-objects --layout objects
  olmcat convert ./catalog-objects ./catalog --layout opm -o yaml --force`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := declcfg.ParseLayout(layout)
			if err != nil {
				return usageError(err)
			}
			f, err := declcfg.ParseFormat(output)
			if err != nil {
				return usageError(err)
			}
			env := actionEnv(cmd, nil, waitLock)
			if quiet {
				env.Progress = nil
			}
			_, err = action.Convert{Env: env, From: args[0], To: args[1], Layout: l, Format: f, Force: force}.Run(cmd.Context())
			return actionError(err, "convert")
		},
	}
	cmd.Flags().StringVar(&layout, "layout", string(declcfg.LayoutOPM), "output layout: opm or objects")
	cmd.Flags().StringVarP(&output, "output", "o", string(declcfg.FormatJSON), "output format: json or yaml")
	cmd.Flags().BoolVar(&force, "force", false, "replace a non-empty output directory")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "no progress bar")
	waitLock = addWaitLockFlag(cmd.Flags())
	return cmd
}
