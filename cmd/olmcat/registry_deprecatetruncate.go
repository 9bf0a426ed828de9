//go:build !slim

package main

import (
	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
)

func newRegistryDeprecateTruncateCmd(img *imageFlags) *cobra.Command {
	var (
		c            registryEditCmd
		bundles      []string
		permissive   bool
		allowRemoval bool
	)
	cmd := &cobra.Command{
		Use:   "deprecatetruncate",
		Short: "Deprecate operator bundles from a catalog (reads an index.db, writes a declarative config)",
		Long: deprecateTruncateLong + `

-d is a sqlite index (read, never written) or a catalog directory; the
result is written to --output, or without it to the catalog directory -d
(updated in place, see registry add). Deprecated: see the notice.`,
		Args: noArgsRequiredFlags,
		RunE: func(cmd *cobra.Command, _ []string) error {
			edit := action.DeprecateTruncate{Images: bundles, AllowPackageRemoval: allowRemoval, Permissive: permissive}
			return c.run(cmd, edit, deprecateStep(bundles, allowRemoval, permissive))
		},
	}
	cmd.Flags().StringSliceVarP(&bundles, "bundle-images", "b", nil, "comma separated list of links to bundle image")
	cmd.Flags().BoolVar(&permissive, "permissive", false, "allow registry load errors")
	cmd.Flags().BoolVar(&allowRemoval, "allow-package-removal", false, "removes the entire package if the heads of all channels in the package are deprecated")
	c.registerDB(cmd, img, "index.db")
	return cmd
}
