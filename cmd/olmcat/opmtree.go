//go:build !slim

package main

import (
	"github.com/spf13/cobra"
)

// attachOPMCommands adds opm v1.73's command tree that olmcat provides
// under root (alpha list, alpha render-graph, alpha bundle, init,
// registry serve) and opm's persistent TLS flags, so that `alias
// opm=olmcat` keeps opm pipelines running. Parents another part of the
// tree also fills (alpha, registry) are shared.
func attachOPMCommands(root *cobra.Command, img *imageFlags) {
	reg := parentCommand(root, "registry", "opm v1.73's registry commands, on declarative configs (deprecated)")
	reg.AddCommand(newRegistryServeCmd())
	alpha := parentCommand(root, "alpha", "opm v1.73's alpha commands")
	alpha.AddCommand(newAlphaListCmd(img), newAlphaRenderGraphCmd(img), newAlphaBundleCmd(img))
	root.AddCommand(newInitCmd())
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
