//go:build !slim

package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// opmNotice is the deprecation notice of a sqlite-era opm command (index
// *, registry *): what it did is done on declarative configs, and next
// time these FBC-native commands do the same job. Printed once, on
// stderr, unless --no-deprecation-warning or noDeprecationWarningEnv
// silences it.
type opmNotice struct {
	silence bool
}

// addOPMNoticeFlag registers --no-deprecation-warning on a sqlite-era
// command.
func addOPMNoticeFlag(fs *pflag.FlagSet) *opmNotice {
	n := &opmNotice{}
	fs.BoolVar(&n.silence, "no-deprecation-warning", false, "do not print the deprecation notice")
	return n
}

// print writes the notice for cmd, suggesting steps (shell commands
// joined with &&).
func (n *opmNotice) print(cmd *cobra.Command, steps ...string) {
	if n.silence || silencedByEnv() {
		return
	}
	w := cmd.ErrOrStderr()
	fmt.Fprintf(w, "DEPRECATION NOTICE: %q belongs to opm's sqlite-era commands, which upstream opm removed.\n"+
		"  olmcat did the same on declarative configs (it never writes sqlite). The FBC-native commands for this job:\n"+
		"    %s\n"+
		"  Set %s=1 or pass --no-deprecation-warning to silence this notice.\n",
		cmd.CommandPath(), strings.Join(steps, " && "), noDeprecationWarningEnv)
}

// silencedByEnv reports whether noDeprecationWarningEnv silences the
// notices: set, and neither "0" nor "false".
func silencedByEnv() bool {
	v := os.Getenv(noDeprecationWarningEnv)
	return v != "" && v != "0" && !strings.EqualFold(v, "false")
}

// quoteAll shell-quotes each of refs and joins them with spaces.
func quoteAll(refs []string) string {
	q := make([]string, len(refs))
	for i, r := range refs {
		q[i] = shellQuote(r)
	}
	return strings.Join(q, " ")
}

// removeSteps are the shell steps removing the folders of packages from
// dir (what rm did).
func removeSteps(dir string, packages []string) []string {
	steps := make([]string, len(packages))
	for i, p := range packages {
		steps[i] = "rm -r " + dir + "/" + shellQuote(p)
	}
	return steps
}

// keepOnlyStep is a shell step removing every package folder of dir but
// keep (what prune did).
func keepOnlyStep(dir string, keep []string) string {
	s := "find " + shellQuote(dir) + " -mindepth 1 -maxdepth 1"
	for _, k := range keep {
		s += " ! -name " + shellQuote(k)
	}
	return s + " -exec rm -r {} +"
}

// copyStep is the suggested first step: the catalog of ref in ./catalog
// (a catalog dir copied, a database migrated, an image unpacked).
func copyStep(ref, imgArgs string) string { return copyStepTo(ref, imgArgs, "catalog") }

// copyStepTo is copyStep into directory dir.
func copyStepTo(ref, imgArgs, dir string) string {
	st, err := os.Stat(ref)
	dir = shellQuote(dir)
	switch {
	case err == nil && st.IsDir():
		return "cp -r " + shellQuote(ref) + " " + dir
	case err == nil:
		return "olmcat migrate " + shellQuote(ref) + " " + dir
	}
	return "olmcat unpack " + shellQuote(ref) + " " + dir + " --layout opm" + imgArgs
}
