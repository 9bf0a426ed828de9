package main

import "github.com/spf13/cobra"

// TODO(owner of serve): replace this placeholder with the real command.
func newServeCmd() *cobra.Command {
	return &cobra.Command{Use: "serve", Hidden: true}
}
