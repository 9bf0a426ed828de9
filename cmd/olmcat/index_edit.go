//go:build !slim

package main

import (
	"github.com/spf13/cobra"

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
