//go:build !slim

package main

import (
	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/cmd/olmcat/internal/report"
	"github.com/operator-catalog/olmcat/declcfg/template"
)

// addCommands assembles the full build's whole command tree, every
// parent with its children, here and nowhere else: olmcat's own commands
// and opm v1.73's tree (index, registry, alpha, init), so that `alias
// opm=olmcat` keeps opm pipelines running. The slim build's tree is in
// commands_slim.go.
func addCommands(root *cobra.Command, img *imageFlags) {
	root.AddCommand(
		newValidateCmd(img),
		newRenderCmd(img),
		newConvertCmd(),
		newMigrateCmd(img),
		newServeCmd(img),
		newParityCmd(img),
		withSubcommands(newGenerateCmd(), newGenerateDockerfileCmd()),
		newUnpackCmd(img),
		newBuildCmd(img),
		newBuildToolImageCmd(img),
		newAddCmd(img),
		newGraphCmd(img),
		newV1CheckCmd(img),
		withSubcommands(newBundleCmd(),
			newBundleExtractCmd(), newBundleLoadCmd(), newBundleUnpackCmd(), newBundleLocalCmd(), newBundleCopyCmd()),
		newVersionCmd(),
		newInitCmd(),
		withSubcommands(groupCmd("alpha", "opm's alpha commands (catalog templates, ...)"),
			newRenderTemplateCmd(img),
			withSubcommands(newConvertTemplateCmd(),
				newConvertTemplateTypeCmd(img, template.TypeBasic), newConvertTemplateTypeCmd(img, template.TypeSubstitutes)),
			withSubcommands(newAlphaListCmd(),
				listCommand(img, "packages <indexRef>", "List packages in an index", exactArgs(1), writePackages),
				listCommand(img, "channels <indexRef> [packageName]", "List package channels in an index", rangeArgs(1, 2), writeChannels),
				listCommand(img, "bundles <indexRef> [packageName]", "List bundles in an index", rangeArgs(1, 2), writeBundles)),
			newAlphaRenderGraphCmd(img),
			withSubcommands(newAlphaBundleCmd(),
				newAlphaBundleGenerateCmd(), newAlphaBundleBuildCmd(img), newAlphaBundleExtractCmd(), newAlphaBundleUnpackCmd(img), newAlphaBundleValidateCmd(img))),
		withSubcommands(groupCmd("index", "opm v1.73's index commands, on declarative configs (deprecated)"),
			newIndexAddCmd(img), newIndexRmCmd(img), newIndexPruneCmd(img), newIndexPruneStrandedCmd(img), newIndexExportCmd(img), newIndexDeprecateTruncateCmd(img)),
		withSubcommands(groupCmd("registry", "opm v1.73's registry commands, on declarative configs (deprecated)"),
			newRegistryServeCmd(), newRegistryAddCmd(img), newRegistryRmCmd(img), newRegistryPruneCmd(img), newRegistryPruneStrandedCmd(img), newRegistryDeprecateTruncateCmd(img)),
	)
	addOPMRootFlags(root)
}

// addOPMRootFlags registers opm's persistent root flags. Commands that
// pull images declare the same names locally (which take precedence);
// elsewhere they are accepted and change nothing, as in opm.
func addOPMRootFlags(root *cobra.Command) {
	pf := root.PersistentFlags()
	pf.Bool("skip-tls-verify", false, "skip TLS certificate verification for container image registries while pulling bundles")
	pf.Bool("use-http", false, "use plain HTTP for container image registries while pulling bundles")
	pf.Bool("skip-tls", false, "skip TLS certificate verification for container image registries while pulling bundles or index")
	_ = pf.MarkDeprecated("skip-tls", "use --use-http and --skip-tls-verify instead")
	_ = pf.MarkHidden("skip-tls")
}

// problemsText names the CLI's flags in the hints of unservable content
// (report.ProblemsText).
func problemsText(err error) string { return report.ProblemsText(err) }
