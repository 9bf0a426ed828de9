//go:build !slim

package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
)

// registryEditCmd is what registry add|rm|prune|prune-stranded|
// deprecatetruncate share: -d names the catalog they read (a sqlite
// database is never written), --output the directory the declarative
// config is written to (default: -d, see target).
type registryEditCmd struct {
	database string
	output   string
	force    bool
	debug    bool
	img      *imageFlags
	notice   *opmNotice
	waitLock *waitLockFlag
}

func (c *registryEditCmd) register(cmd *cobra.Command, img *imageFlags) {
	c.registerDB(cmd, img, "bundles.db")
}

// registerDB registers the flags with -d defaulting to db (opm's
// deprecatetruncate defaulted to index.db, the others to bundles.db).
func (c *registryEditCmd) registerDB(cmd *cobra.Command, img *imageFlags, db string) {
	fl := cmd.Flags()
	fl.StringVarP(&c.database, "database", "d", db, "relative path to database file (read, never written)")
	fl.StringVar(&c.output, "output", "", "write the resulting declarative config catalog to `DIR` (default: -d itself when it is a catalog directory, updated in place, or names nothing yet; required for a sqlite -d, which is never written)")
	fl.BoolVar(&c.force, "force", false, "replace an existing non-empty --output directory")
	fl.BoolVar(&c.debug, "debug", false, "enable debug logging")
	c.img = img
	takesImages(cmd, imageInputFlags)
	c.notice = addOPMNoticeFlag(fl)
	c.waitLock = addWaitLockFlag(fl)
}

// steps are the FBC-native commands doing the job: the catalog of -d in
// a directory (where the result goes: --output, -d itself when it is a
// catalog directory or names nothing yet, else ./catalog), then what is
// specific to the command (a check when nothing is).
func (c *registryEditCmd) steps(cmd *cobra.Command, specific ...string) []string {
	out := c.output
	st, err := os.Stat(c.database)
	var s []string
	switch {
	case out == "" && (err != nil || st.IsDir()):
		out = c.database // a new catalog directory, or updated in place
		if err != nil {
			s = append(s, "mkdir "+shellQuote(out))
		}
	case out == "":
		out = "catalog"
		s = append(s, copyStepTo(c.database, imageFlagArgs(cmd.Flags()), out))
	case err != nil:
		s = append(s, "mkdir "+shellQuote(out))
	default:
		s = append(s, copyStepTo(c.database, imageFlagArgs(cmd.Flags()), out))
	}
	if len(specific) == 0 {
		specific = []string{"olmcat validate catalog"}
	}
	for _, step := range specific {
		s = append(s, strings.ReplaceAll(strings.ReplaceAll(step, " catalog", " "+shellQuote(out)), "catalog/", shellQuote(out)+"/"))
	}
	return s
}

// run prints the notice and applies edit to -d (action.RegistryEdit):
// the result goes to --output, or without it to -d itself when that is a
// catalog directory (updated in place) or nothing yet (a new catalog
// directory); a sqlite file is never written, so it needs --output (exit
// 2, with the commands to run instead).
func (c *registryEditCmd) run(cmd *cobra.Command, edit action.Edit, specific ...string) error {
	steps := c.steps(cmd, specific...)
	c.notice.print(cmd, steps...)
	r := action.RegistryEdit{Env: actionEnv(cmd, c.img, c.waitLock), Legacy: conversionHooks(cmd), Database: c.database, Output: c.output, Force: c.force, Edit: edit}
	// Checked before the daemon-tool note, as the notice's steps are
	// what the refusal suggests.
	if _, err := r.Target(); errors.Is(err, action.ErrSQLiteTarget) {
		return usageError(fmt.Errorf("%s writes no sqlite database: pass --output DIR to write the resulting declarative config, or run: %s",
			cmd.CommandPath(), strings.Join(steps, " && ")))
	} else if err != nil {
		return actionError(err, "index")
	}
	noteDaemonTools(cmd.Flags(), cmd.ErrOrStderr())
	_, err := r.Run(cmd.Context())
	return actionError(err, "index")
}
