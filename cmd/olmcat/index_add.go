//go:build !slim

package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/declcfg/indexop"
)

// addModeFlags are the flags of opm's add commands that choose how the
// graph changes.
type addModeFlags struct {
	mode            string
	permissive      bool
	overwriteLatest bool
	enableAlpha     bool
}

func (f *addModeFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.mode, "mode", string(indexop.ModeReplaces), "graph update mode that defines how channel graphs are updated (replaces, semver or semver-skippatch)")
	fl.BoolVar(&f.permissive, "permissive", false, "leave out bundles that fail to load or to add, reporting each, and go on with the others")
	fl.BoolVar(&f.overwriteLatest, "overwrite-latest", false, "overwrite the latest bundles (channel heads) with those of the same csv name given by --bundles")
	_ = fl.MarkHidden("overwrite-latest")
	fl.BoolVar(&f.enableAlpha, "enable-alpha", false, "enable unsupported alpha features of the OLM catalog format (olm.substitutesFor)")
	_ = fl.MarkHidden("enable-alpha")
}

// edit is the action adding bundles with the flags' mode.
func (f *addModeFlags) edit(bundles []string) action.AddBundles {
	return action.AddBundles{Bundles: bundles, Mode: indexop.Mode(f.mode), OverwriteLatest: f.overwriteLatest,
		EnableAlpha: f.enableAlpha, Permissive: f.permissive}
}

// modeArg is --mode (and --enable-alpha) for a suggested olmcat add,
// "" for the defaults.
func (f *addModeFlags) modeArg() string {
	s := ""
	if !strings.EqualFold(f.mode, string(indexop.ModeReplaces)) {
		s = " --mode " + strings.ToLower(f.mode)
	}
	if f.enableAlpha {
		s += " --enable-alpha"
	}
	return s
}

func newIndexAddCmd(img *imageFlags) *cobra.Command {
	var (
		bundles   []string
		fromIndex string
		mode      addModeFlags
	)
	cmd := &cobra.Command{
		Use:   "add",
		Short: "Add operator bundles to an index (on declarative configs)",
		Long: `Add bundles to a catalog, as opm v1.73's index add did to a sqlite index,
on declarative configs: --from-index is a sqlite index image, a declarative
config image, an index.db or a catalog directory (none: a new catalog).
The result is the catalog opm migrate makes of the database opm would have
produced, with the graph update --mode of opm (replaces, semver,
semver-skippatch), built and pushed to --tag (a self-serving image, or on
--binary-image), or with --generate written to ./database with a
Dockerfile. Nothing is written or pushed unless every bundle was added and
the result is valid. Deprecated: see the notice for the FBC-native
commands that do the same.`,
		Example: `  olmcat index add --bundles registry.example.com/ns/etcd-bundle:v0.9.4 --from-index registry.example.com/ns/index:v1 --tag registry.example.com/ns/index:v2
  olmcat index add -b ./bundles/etcd.0.9.4 -f ./catalog --generate -i registry.example.com/operator-framework/opm:v1.73.0`,
		Args: noArgsRequiredFlags,
	}
	fl := cmd.Flags()
	fl.StringSliceVarP(&bundles, "bundles", "b", nil, "comma separated list of bundles to add")
	fl.StringVarP(&fromIndex, "from-index", "f", "", "previous index to add to (image, index.db or catalog directory)")
	out := addIndexOutFlags(fl)
	mode.register(cmd)
	addDaemonToolFlag(fl, "container-tool", "c", "", "tool to interact with container images (save, build, etc.). One of: [docker, podman]")
	addDaemonToolFlag(fl, "build-tool", "u", "", "tool to build container images. One of: [docker, podman]. Defaults to podman. Overrides part of container-tool.")
	addDaemonToolFlag(fl, "pull-tool", "p", "", "tool to pull container images. One of: [none, docker, podman]. Defaults to none. Overrides part of container-tool.")
	takesImages(cmd, imageInputFlags)
	notice := addOPMNoticeFlag(fl)
	_ = cmd.MarkFlagRequired("bundles")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		imgArgs := imageFlagArgs(cmd.Flags())
		start := "mkdir catalog"
		if fromIndex != "" {
			start = copyStep(fromIndex, imgArgs)
		}
		// Checked first: the notice names the output flags' values, and
		// suggests only commands that run.
		if err := out.check(img); err != nil {
			return usageError(err)
		}
		notice.print(cmd, start, "olmcat add catalog "+quoteAll(bundles)+mode.modeArg()+imgArgs, finishStep(out, imgArgs))
		noteDaemonTools(cmd.Flags(), cmd.ErrOrStderr())
		return out.run(cmd, img, fromIndex, mode.edit(bundles))
	}
	return cmd
}

// finishStep is the suggested last step: build and push, or generate
// the Dockerfile (out passed check: --generate has -i, a build --tag).
func finishStep(out *indexOutFlags, imgArgs string) string {
	if out.generate {
		return "olmcat generate dockerfile catalog -i " + shellQuote(out.binaryImage)
	}
	s := "olmcat build catalog " + shellQuote(out.tag)
	if out.binaryImage != "" {
		s += " --base-image " + shellQuote(out.binaryImage)
	}
	return s + imgArgs
}
