package main

import "github.com/spf13/cobra"

// TODO(owner of validate): replace this placeholder with the real command.
func newValidateCmd() *cobra.Command {
	return &cobra.Command{Use: "validate", Hidden: true}
}
