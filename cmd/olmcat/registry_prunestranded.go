//go:build !slim

package main

import (
	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
)

func newRegistryPruneStrandedCmd(img *imageFlags) *cobra.Command {
	var c registryEditCmd
	cmd := &cobra.Command{
		Use:   "prune-stranded",
		Short: "Prune a catalog of stranded bundles (reads an index.db, writes a declarative config)",
		Long: `Drop the bundles no channel holds, as opm v1.73's registry prune-stranded
did, without writing the database: -d is read and the declarative config is
written to --output (default: -d, see add; olmcat migrate leaves
stranded bundles out by itself). Deprecated: see the notice for the
FBC-native commands that do the same.`,
		Args: noArgsRequiredFlags,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.run(cmd, action.PruneStranded{})
		},
	}
	c.register(cmd, img)
	return cmd
}
