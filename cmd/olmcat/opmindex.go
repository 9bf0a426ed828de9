//go:build !slim

package main

import (
	"github.com/spf13/cobra"
)

// attachOPMIndexCommands adds opm v1.73's sqlite-era commands (index *,
// registry * but serve) under the "index" and "registry" parents of root,
// creating a parent that does not exist yet.
func attachOPMIndexCommands(root *cobra.Command, img *imageFlags) {
	index := parentCommand(root, "index", "opm v1.73's index commands, on declarative configs (deprecated)")
	index.AddCommand(newIndexAddCmd(img), newIndexRmCmd(img), newIndexPruneCmd(img), newIndexPruneStrandedCmd(img), newIndexExportCmd(img), newIndexDeprecateTruncateCmd(img))
	reg := parentCommand(root, "registry", "opm v1.73's registry commands, on declarative configs (deprecated)")
	reg.AddCommand(newRegistryAddCmd(img), newRegistryRmCmd(img), newRegistryPruneCmd(img), newRegistryPruneStrandedCmd(img), newRegistryDeprecateTruncateCmd(img))
}

// parentCommand returns root's subcommand name, adding a grouping command
// of that name when there is none.
func parentCommand(root *cobra.Command, name, short string) *cobra.Command {
	for _, c := range root.Commands() {
		if c.Name() == name {
			return c
		}
	}
	c := &cobra.Command{Use: name, Short: short}
	root.AddCommand(c)
	return c
}

// noArgsRequiredFlags takes no arguments and makes a missing required
// flag a usage error (exit 2), as a bad flag is; cobra would check the
// required flags after the arguments and return a plain error.
func noArgsRequiredFlags(cmd *cobra.Command, args []string) error {
	if err := exactArgs(0)(cmd, args); err != nil {
		return err
	}
	if err := cmd.ValidateRequiredFlags(); err != nil {
		return usageError(err)
	}
	return nil
}
