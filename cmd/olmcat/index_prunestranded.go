//go:build !slim

package main

import (
	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
)

func newIndexPruneStrandedCmd(img *imageFlags) *cobra.Command {
	var c indexEditCmd
	cmd := &cobra.Command{
		Use:   "prune-stranded",
		Short: "Prune an index of stranded bundles (on declarative configs)",
		Long: `Drop the bundles no channel holds, as opm v1.73's index prune-stranded
did to a sqlite index, on declarative configs (see index add for the
inputs and outputs). A catalog migrated from sqlite has none: olmcat
migrate and unpack leave them out. Deprecated: see the notice for the
FBC-native commands that do the same.`,
		Args: noArgsRequiredFlags,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.run(cmd, action.PruneStranded{}, "olmcat validate catalog")
		},
	}
	c.register(cmd, img, "podman")
	return cmd
}
