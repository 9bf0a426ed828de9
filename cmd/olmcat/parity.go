package main

import "github.com/spf13/cobra"

// TODO(owner of parity): replace this placeholder with the real command.
func newParityCmd() *cobra.Command {
	return &cobra.Command{Use: "parity", Hidden: true}
}
