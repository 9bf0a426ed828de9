//go:build !slim

package main

import (
	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
)

func newRegistryPruneCmd(img *imageFlags) *cobra.Command {
	var (
		c          registryEditCmd
		packages   []string
		permissive bool
	)
	cmd := &cobra.Command{
		Use:   "prune",
		Short: "Prune a catalog of all but specified packages (reads an index.db, writes a declarative config)",
		Long: `Keep only the packages named, as opm v1.73's registry prune did, without
writing the database: -d is read and the declarative config is written to
--output (default: -d, see add). Deprecated: see the notice for the
FBC-native commands that do the same.`,
		Args: noArgsRequiredFlags,
		RunE: func(cmd *cobra.Command, _ []string) error {
			keep := packageList(packages)
			return c.run(cmd, action.KeepPackages{Packages: keep}, keepOnlyStep("catalog", keep))
		},
	}
	cmd.Flags().StringSliceVarP(&packages, "packages", "p", nil, "comma separated list of package names to be kept")
	_ = cmd.MarkFlagRequired("packages")
	cmd.Flags().BoolVar(&permissive, "permissive", false, "allow registry load errors")
	c.register(cmd, img)
	return cmd
}
