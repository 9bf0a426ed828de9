//go:build !slim

package main

import "github.com/spf13/cobra"

// newAlphaCmd groups opm's alpha commands that olmcat provides.
func newAlphaCmd(img *imageFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "alpha",
		Short: "opm's alpha commands (catalog templates, ...)",
	}
	cmd.AddCommand(newRenderTemplateCmd(img), newConvertTemplateCmd(img))
	return cmd
}
