//go:build !slim

package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/template"
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
			_, err := action.ConvertTemplate{Env: actionEnv(cmd, img, nil), Ref: arg, In: cmd.InOrStdin(), Type: t,
				Legacy: legacyHooks(cmd.ErrOrStderr(), "convert-template", imageFlagArgs(cmd.Flags()), !noDeprecationWarning),
				Format: declcfg.Format(output), Out: cmd.OutOrStdout()}.Run(cmd.Context())
			return actionError(err, "convert-template")
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "json", "Output format (json|yaml)")
	cmd.Flags().BoolVar(&noDeprecationWarning, "no-deprecation-warning", false, "do not print the sqlite deprecation warning")
	takesImages(cmd, imageSourceFlags)
	return cmd
}
