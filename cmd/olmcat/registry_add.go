//go:build !slim

package main

import (
	"github.com/spf13/cobra"
)

func newRegistryAddCmd(img *imageFlags) *cobra.Command {
	var (
		c       registryEditCmd
		bundles []string
		mode    addModeFlags
		skipTLS bool
	)
	cmd := &cobra.Command{
		Use:   "add",
		Short: "Add operator bundles to a catalog (reads an index.db, writes a declarative config)",
		Long: `Add bundles as opm v1.73's registry add did, without writing the database:
-d is read (a missing file is an empty catalog; a catalog directory works
too), the bundles are added with opm's graph update --mode, and the
declarative config opm migrate would make of the resulting database is
written to --output, or without it to -d: a new catalog directory where
-d named nothing, a catalog directory updated in place (a sqlite -d is
never written: pass --output). Deprecated: see the notice for the FBC-native
commands that do the same.`,
		Args: noArgsRequiredFlags,
		RunE: func(cmd *cobra.Command, _ []string) error {
			imgArgs := imageFlagArgs(cmd.Flags())
			edit := mode.edit(bundles)
			if skipTLS {
				// opm reached only the bundles' registries in plain HTTP.
				plain := *c.img
				plain.useHTTP = true
				edit.ImageOptions = plain.actionOptions
			}
			return c.run(cmd, edit, "olmcat add catalog "+quoteAll(bundles)+mode.modeArg()+imgArgs)
		},
	}
	cmd.Flags().StringSliceVarP(&bundles, "bundle-images", "b", nil, "comma separated list of links to bundle image")
	mode.register(cmd)
	addDaemonToolFlag(cmd.Flags(), "container-tool", "c", "none", "tool to interact with container images (save, build, etc.). One of: [none, docker, podman]")
	c.register(cmd, img)
	cmd.Flags().BoolVar(&skipTLS, "skip-tls", false, "skip TLS certificate verification for container image registries while pulling bundles")
	_ = cmd.Flags().MarkDeprecated("skip-tls", "use --use-http and --skip-tls-verify instead")
	return cmd
}
