package main

import "github.com/spf13/cobra"

// TODO(owner of convert): replace this placeholder with the real command.
func newConvertCmd() *cobra.Command {
	return &cobra.Command{Use: "convert", Hidden: true}
}
