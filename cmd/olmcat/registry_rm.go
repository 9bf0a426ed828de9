//go:build !slim

package main

import (
	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
)

func newRegistryRmCmd(img *imageFlags) *cobra.Command {
	var (
		c          registryEditCmd
		packages   []string
		permissive bool
	)
	cmd := &cobra.Command{
		Use:   "rm",
		Short: "Remove packages from a catalog (reads an index.db, writes a declarative config)",
		Long: `Remove packages as opm v1.73's registry rm did, without writing the
database: -d is read and the declarative config without the packages is
written to --output (default: -d, see add). Deprecated: see the notice for
the FBC-native commands that do the same.`,
		Args: noArgsRequiredFlags,
		RunE: func(cmd *cobra.Command, _ []string) error {
			names := packageList(packages)
			return c.run(cmd, action.RemovePackages{Packages: names, Permissive: permissive}, removeSteps("catalog", names)...)
		},
	}
	cmd.Flags().StringSliceVarP(&packages, "packages", "o", nil, "comma separated list of package names to be deleted")
	_ = cmd.MarkFlagRequired("packages")
	cmd.Flags().BoolVar(&permissive, "permissive", false, "allow registry load errors")
	c.register(cmd, img)
	return cmd
}
