//go:build !slim

package main

import (
	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/cmd/olmcat/internal/report"
)

// addCommands registers every command of the CLI: olmcat's own and opm
// v1.73's command tree.
func addCommands(root *cobra.Command, img *imageFlags) {
	root.AddCommand(
		newValidateCmd(img),
		newRenderCmd(img),
		newConvertCmd(),
		newMigrateCmd(img),
		newServeCmd(img),
		newParityCmd(img),
		newGenerateCmd(),
		newUnpackCmd(img),
		newBuildCmd(img),
		newBuildToolImageCmd(img),
		newAddCmd(img),
		newGraphCmd(img),
		newBundleCmd(),
		newVersionCmd(),
		newAlphaCmd(img),
	)
	attachOPMIndexCommands(root, img)
	attachOPMCommands(root, img)
}

// problemsText names the CLI's flags in the hints of unservable content
// (report.ProblemsText).
func problemsText(err error) string { return report.ProblemsText(err) }
