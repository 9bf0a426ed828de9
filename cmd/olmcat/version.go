package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Set by `make build` with -ldflags -X, for builds where the Go toolchain
// records no VCS information (GOFLAGS=-buildvcs=false, a source tarball).
var (
	version = ""
	commit  = ""
)

// versionString is the module version and VCS commit of this binary, from
// the -X values when set and from the build info otherwise.
func versionString() string {
	v, c, modified := version, commit, false
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "" {
			v = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				if c == "" {
					c = s.Value
				}
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if v == "" {
		v = "(devel)"
	}
	if c == "" {
		c = "unknown"
	} else if modified {
		c += " (modified)"
	}
	return fmt.Sprintf("%s, commit %s", v, c)
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the olmcat version and the commit it was built from",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), "olmcat "+versionString())
			return err
		},
	}
}
