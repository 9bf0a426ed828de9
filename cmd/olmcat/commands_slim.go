//go:build slim

package main

import "github.com/spf13/cobra"

// addCommands registers the commands of the slim build, the binary of
// the images olmcat build makes and of the unpack Job: serving a
// declarative config (the images' entrypoint, with opm serve's flags) and
// the bundle commands the Job runs, and the one opm command OLM's own
// unpack Job runs in its opm image (alpha bundle extract). It links no
// sqlite library and no Kubernetes client; every other command is the
// full CLI's.
func addCommands(root *cobra.Command, img *imageFlags) {
	root.Long += `

This is the slim build shipped in the images olmcat builds and run by the
unpack Job: it serves declarative configs and runs the Job's bundle
commands. Every other command is in the full olmcat.`
	alphaBundle := &cobra.Command{Use: "bundle", Short: "Operator bundle commands (opm alpha bundle)"}
	alphaBundle.AddCommand(newAlphaBundleExtractCmd())
	alpha := &cobra.Command{Use: "alpha", Short: "opm v1.73's alpha commands"}
	alpha.AddCommand(alphaBundle)
	root.AddCommand(newServeCmd(img), newBundleCmd(), newVersionCmd(), alpha)
}

// problemsText is err's message: the slim build runs no migration, whose
// problems the full CLI's text names flags for.
func problemsText(err error) string { return err.Error() }
