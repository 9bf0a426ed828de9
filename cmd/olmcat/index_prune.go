//go:build !slim

package main

import (
	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
)

func newIndexPruneCmd(img *imageFlags) *cobra.Command {
	var (
		c          indexEditCmd
		packages   []string
		permissive bool
	)
	cmd := &cobra.Command{
		Use:   "prune",
		Short: "Prune an index of all but specified packages (on declarative configs)",
		Long: `Keep only the packages named, as opm v1.73's index prune did to a sqlite
index, on declarative configs (see index add for the inputs and outputs).
Deprecated: see the notice for the FBC-native commands that do the same.`,
		Args: noArgsRequiredFlags,
		RunE: func(cmd *cobra.Command, _ []string) error {
			keep := packageList(packages)
			return c.run(cmd, action.KeepPackages{Packages: keep}, keepOnlyStep("catalog", keep))
		},
	}
	cmd.Flags().StringSliceVarP(&packages, "packages", "p", nil, "comma separated list of packages to keep")
	_ = cmd.MarkFlagRequired("packages")
	cmd.Flags().BoolVar(&permissive, "permissive", false, "allow registry load errors")
	c.register(cmd, img, "podman")
	return cmd
}
