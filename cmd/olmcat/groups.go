package main

import "github.com/spf13/cobra"

// groupCmd is a command that only groups its subcommands (opm's index,
// registry and alpha); run without one, or with an unknown one, it is a
// usage error (refuseUnknownCommands).
func groupCmd(use, short string) *cobra.Command {
	return &cobra.Command{Use: use, Short: short}
}

// withSubcommands adds children to parent and returns it, so that the
// tree reads as one nested expression (commands.go).
func withSubcommands(parent *cobra.Command, children ...*cobra.Command) *cobra.Command {
	parent.AddCommand(children...)
	return parent
}

// newAlphaBundleCmd groups opm's alpha bundle commands (both builds).
func newAlphaBundleCmd() *cobra.Command {
	return groupCmd("bundle", "Operator bundle commands (opm alpha bundle)")
}
