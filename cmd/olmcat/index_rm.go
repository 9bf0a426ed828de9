//go:build !slim

package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/operator-catalog/olmcat/action"
)

func newIndexRmCmd(img *imageFlags) *cobra.Command {
	var (
		c          indexEditCmd
		operators  []string
		permissive bool
	)
	cmd := &cobra.Command{
		Use:   "rm",
		Short: "Delete an entire operator from an index (on declarative configs)",
		Long: `Remove packages from a catalog, as opm v1.73's index rm did to a sqlite
index, on declarative configs (see index add for the inputs and outputs).
Deprecated: see the notice for the FBC-native commands that do the same.`,
		Args: noArgsRequiredFlags,
		RunE: func(cmd *cobra.Command, _ []string) error {
			names := packageList(operators)
			return c.run(cmd, action.RemovePackages{Packages: names, Permissive: permissive}, removeSteps("catalog", names)...)
		},
	}
	cmd.Flags().StringSliceVarP(&operators, "operators", "o", nil, "comma separated list of operators to delete")
	_ = cmd.MarkFlagRequired("operators")
	cmd.Flags().BoolVar(&permissive, "permissive", false, "allow registry load errors")
	c.register(cmd, img, "")
	addPullBuildToolFlags(cmd.Flags())
	return cmd
}

// addPullBuildToolFlags adds index rm's -u and -p (accepted, unused).
func addPullBuildToolFlags(fl *pflag.FlagSet) {
	addDaemonToolFlag(fl, "build-tool", "u", "", "tool to build container images. One of: [docker, podman]. Defaults to podman. Overrides part of container-tool.")
	addDaemonToolFlag(fl, "pull-tool", "p", "", "tool to pull container images. One of: [none, docker, podman]. Defaults to none. Overrides part of container-tool.")
}
