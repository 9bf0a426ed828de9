package main

import "github.com/spf13/cobra"

// TODO(owner of migrate): replace this placeholder with the real command.
func newMigrateCmd() *cobra.Command {
	return &cobra.Command{Use: "migrate", Hidden: true}
}
