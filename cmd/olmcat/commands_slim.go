//go:build slim

package main

import "github.com/spf13/cobra"

// addCommands registers the commands of the slim build, the binary of
// the images olmcat build makes and of the unpack Job: serving a
// declarative config (the images' entrypoint, with opm serve's flags) and
// the bundle commands the Job runs. It links no sqlite library and no
// Kubernetes client; every other command is the full CLI's.
func addCommands(root *cobra.Command) {
	root.Long += `

This is the slim build shipped in the images olmcat builds and run by the
unpack Job: it serves declarative configs and runs the Job's bundle
commands. Every other command is in the full olmcat.`
	root.AddCommand(newServeCmd(), newBundleCmd(), newVersionCmd())
}

// problemsText is err's message: the slim build runs no migration, whose
// problems the full CLI's text names flags for.
func problemsText(err error) string { return err.Error() }
