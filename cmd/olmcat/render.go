package main

import "github.com/spf13/cobra"

// TODO(owner of render): replace this placeholder with the real command.
func newRenderCmd() *cobra.Command {
	return &cobra.Command{Use: "render", Hidden: true}
}
