//go:build !slim

package main

import (
	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/cmd/olmcat/internal/report"
)

// addCommands registers every command of the CLI: olmcat's own and opm
// v1.73's command tree.
func addCommands(root *cobra.Command) {
	root.AddCommand(
		newValidateCmd(),
		newRenderCmd(),
		newConvertCmd(),
		newMigrateCmd(),
		newServeCmd(),
		newParityCmd(),
		newGenerateCmd(),
		newUnpackCmd(),
		newBuildCmd(),
		newBuildToolImageCmd(),
		newAddCmd(),
		newGraphCmd(),
		newBundleCmd(),
		newVersionCmd(),
		newAlphaCmd(),
	)
	attachOPMIndexCommands(root)
	attachOPMCommands(root)
}

// problemsText names the CLI's flags in the hints of unservable content
// (report.ProblemsText).
func problemsText(err error) string { return report.ProblemsText(err) }
