//go:build !slim

package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/operator-catalog/olmcat/action"
)

// indexEditCmd is what index rm|prune|prune-stranded share: --from-index,
// the output flags, the daemon and image flags and the notice.
type indexEditCmd struct {
	fromIndex string
	out       *indexOutFlags
	img       *imageFlags
	notice    *opmNotice
}

func (c *indexEditCmd) register(cmd *cobra.Command, img *imageFlags, containerToolDefault string) {
	fl := cmd.Flags()
	fl.StringVarP(&c.fromIndex, "from-index", "f", "", "index to work on (image, index.db or catalog directory)")
	_ = cmd.MarkFlagRequired("from-index")
	c.out = addIndexOutFlags(fl)
	addDaemonToolFlag(fl, "container-tool", "c", containerToolDefault, "tool to interact with container images (save, build, etc.). One of: [docker, podman]")
	c.img = img
	takesImages(cmd, imageInputFlags)
	c.notice = addOPMNoticeFlag(fl)
}

// run prints the notice with the suggested steps, then applies edit.
func (c *indexEditCmd) run(cmd *cobra.Command, edit action.Edit, steps ...string) error {
	imgArgs := imageFlagArgs(cmd.Flags())
	all := append([]string{copyStep(c.fromIndex, imgArgs)}, steps...)
	// Checked first: the notice suggests only commands that run.
	if err := c.out.check(c.img); err != nil {
		return usageError(err)
	}
	c.notice.print(cmd, append(all, finishStep(c.out, imgArgs))...)
	noteDaemonTools(cmd.Flags(), cmd.ErrOrStderr())
	return c.out.run(cmd, c.img, c.fromIndex, edit)
}

func newIndexRmCmd(img *imageFlags) *cobra.Command {
	var (
		c          indexEditCmd
		operators  []string
		permissive bool
	)
	cmd := &cobra.Command{
		Use:   "rm",
		Short: "Delete an entire operator from an index (on declarative configs)",
		Long: `Remove packages from a catalog, as opm v1.73's index rm did to a sqlite
index, on declarative configs (see index add for the inputs and outputs).
Deprecated: see the notice for the FBC-native commands that do the same.`,
		Args: noArgsRequiredFlags,
		RunE: func(cmd *cobra.Command, _ []string) error {
			names := packageList(operators)
			return c.run(cmd, action.RemovePackages{Packages: names, Permissive: permissive}, removeSteps("catalog", names)...)
		},
	}
	cmd.Flags().StringSliceVarP(&operators, "operators", "o", nil, "comma separated list of operators to delete")
	_ = cmd.MarkFlagRequired("operators")
	cmd.Flags().BoolVar(&permissive, "permissive", false, "allow registry load errors")
	c.register(cmd, img, "")
	addPullBuildToolFlags(cmd.Flags())
	return cmd
}

// addPullBuildToolFlags adds index rm's -u and -p (accepted, unused).
func addPullBuildToolFlags(fl *pflag.FlagSet) {
	addDaemonToolFlag(fl, "build-tool", "u", "", "tool to build container images. One of: [docker, podman]. Defaults to podman. Overrides part of container-tool.")
	addDaemonToolFlag(fl, "pull-tool", "p", "", "tool to pull container images. One of: [none, docker, podman]. Defaults to none. Overrides part of container-tool.")
}

func newIndexPruneCmd(img *imageFlags) *cobra.Command {
	var (
		c          indexEditCmd
		packages   []string
		permissive bool
	)
	cmd := &cobra.Command{
		Use:   "prune",
		Short: "Prune an index of all but specified packages (on declarative configs)",
		Long: `Keep only the packages named, as opm v1.73's index prune did to a sqlite
index, on declarative configs (see index add for the inputs and outputs).
Deprecated: see the notice for the FBC-native commands that do the same.`,
		Args: noArgsRequiredFlags,
		RunE: func(cmd *cobra.Command, _ []string) error {
			keep := packageList(packages)
			return c.run(cmd, action.KeepPackages{Packages: keep}, keepOnlyStep("catalog", keep))
		},
	}
	cmd.Flags().StringSliceVarP(&packages, "packages", "p", nil, "comma separated list of packages to keep")
	_ = cmd.MarkFlagRequired("packages")
	cmd.Flags().BoolVar(&permissive, "permissive", false, "allow registry load errors")
	c.register(cmd, img, "podman")
	return cmd
}

func newIndexPruneStrandedCmd(img *imageFlags) *cobra.Command {
	var c indexEditCmd
	cmd := &cobra.Command{
		Use:   "prune-stranded",
		Short: "Prune an index of stranded bundles (on declarative configs)",
		Long: `Drop the bundles no channel holds, as opm v1.73's index prune-stranded
did to a sqlite index, on declarative configs (see index add for the
inputs and outputs). A catalog migrated from sqlite has none: olmcat
migrate and unpack leave them out. Deprecated: see the notice for the
FBC-native commands that do the same.`,
		Args: noArgsRequiredFlags,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.run(cmd, action.PruneStranded{}, "olmcat validate catalog")
		},
	}
	c.register(cmd, img, "podman")
	return cmd
}
