//go:build !slim

package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
)

// deprecateTruncateLong is what registry and index deprecatetruncate do,
// opm's example included.
const deprecateTruncateLong = `Deprecate and truncate operator bundles, as opm v1.73's hidden
deprecatetruncate did to a sqlite index, on declarative configs. Bundles
are named by image (-b). Each one keeps its place in the channels it does
not head, without replaces or skips, with the olm.deprecated property and
an entry in its package's olm.deprecations blob; the bundles below it
(its replaces and skips chain) leave its channels, and the catalog when
nothing else holds them; the channels it heads are removed.

	1.4.0 -- replaces -> 1.3.0 -- replaces -> 1.2.0 -- replaces -> 1.1.0
	deprecatetruncate -b <1.3.0's image> makes
	1.4.0 -- replaces -> 1.3.0 [deprecated]

Deprecating a bundle whose truncation removes the default channel's head
is refused, unless --allow-package-removal is given and the heads of all
channels of its package are deprecated: the package is then removed.
An image no bundle has is an error (--permissive: a warning).`

func newIndexDeprecateTruncateCmd(img *imageFlags) *cobra.Command {
	var (
		c            indexEditCmd
		bundles      []string
		permissive   bool
		allowRemoval bool
	)
	cmd := &cobra.Command{
		Use:   "deprecatetruncate",
		Short: "Deprecate and truncate operator bundles from an index (on declarative configs)",
		Long: deprecateTruncateLong + `

See index add for the inputs and outputs. Deprecated: see the notice.`,
		Args: noArgsRequiredFlags,
		RunE: func(cmd *cobra.Command, _ []string) error {
			edit := action.DeprecateTruncate{Images: bundles, AllowPackageRemoval: allowRemoval, Permissive: permissive}
			return c.run(cmd, edit, deprecateStep(bundles, allowRemoval, permissive))
		},
	}
	cmd.Flags().StringSliceVarP(&bundles, "bundles", "b", nil, "comma separated list of bundles to deprecate")
	_ = cmd.MarkFlagRequired("bundles")
	cmd.Flags().BoolVar(&permissive, "permissive", false, "allow registry load errors")
	cmd.Flags().BoolVar(&allowRemoval, "allow-package-removal", false, "removes the entire package if the heads of all channels in the package are deprecated")
	c.register(cmd, img, "")
	addPullBuildToolFlags(cmd.Flags())
	return cmd
}

// deprecateStep is the suggested step deprecating in ./catalog in place.
func deprecateStep(bundles []string, allowRemoval, permissive bool) string {
	s := "olmcat registry deprecatetruncate -d catalog --no-deprecation-warning"
	if len(bundles) > 0 {
		s += " -b " + shellQuote(strings.Join(bundles, ","))
	}
	if allowRemoval {
		s += " --allow-package-removal"
	}
	if permissive {
		s += " --permissive"
	}
	return s
}
