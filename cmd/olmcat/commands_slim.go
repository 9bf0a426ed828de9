//go:build slim

package main

import "github.com/spf13/cobra"

// addCommands assembles the whole command tree of the slim build, the binary of
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
	root.AddCommand(
		newServeCmd(img),
		// The two bundle commands the unpack Job runs, which reach the
		// cluster without a Kubernetes client library.
		withSubcommands(newBundleCmd(), newBundleExtractCmd(), newBundleCopyCmd()),
		newVersionCmd(),
		withSubcommands(groupCmd("alpha", "opm v1.73's alpha commands"),
			withSubcommands(newAlphaBundleCmd(), newAlphaBundleExtractCmd())),
	)
}

// problemsText is err's message: the slim build runs no migration, whose
// problems the full CLI's text names flags for.
func problemsText(err error) string { return err.Error() }
