//go:build !slim

package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func newAlphaBundleGenerateCmd() *cobra.Command {
	f := &bundleGenFlags{}
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Generate the metadata/annotations.yaml and bundle.Dockerfile of a bundle directory",
		Long: `Write <parent of --directory>/metadata/annotations.yaml (or, with
--output-dir, copy the manifests to <output-dir>/manifests/ and write
<output-dir>/metadata/annotations.yaml) and ./bundle.Dockerfile, byte for
byte as opm alpha bundle generate writes them. The media type is detected
from the manifests (registry+v1 with a ClusterServiceVersion, helm for a
chart, plain otherwise). --package and --channels are required: olmcat does
not infer them from an appregistry package directory.`,
		Example: `  olmcat alpha bundle generate -d ./etcd/0.9.4/manifests -p etcd -c alpha,stable -e stable`,
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.dir == "" {
				return usageError(errors.New(`required flag(s) "directory" not set`))
			}
			f.swept = sweptPrinter(cmd.ErrOrStderr())
			return f.generate()
		},
	}
	f.addFlags(cmd.Flags())
	return cmd
}
