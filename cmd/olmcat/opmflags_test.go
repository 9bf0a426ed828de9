package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// opmHelpDir holds opm v1.73.0's --help of every command, recorded with
// scripts/record-opm-help.sh (HELP_ALPHA=true, so alpha-only flags are
// listed too).
const opmHelpDir = "../../fixtures/opm-help"

// opmDefaultsDiffer are the flags whose default deliberately differs
// from opm's, with the reason (the README's compatibility table says the
// same).
var opmDefaultsDiffer = map[string]string{
	// olmcat names no image registry: the opm image a pipeline builds on
	// is always its own choice.
	"generate dockerfile --base-image":    "no default image",
	"generate dockerfile --builder-image": "no default image (the base image)",
	// The same meaning: opm's empty default is "none" (its usage says
	// "default: none") and plain text.
	"render --migrate-level":                "none",
	"migrate --migrate-level":               "none",
	"alpha render-template --migrate-level": "none",
	"validate --output":                     "text",
}

// opmFlag is one flag line of a recorded --help.
type opmFlag struct {
	shorthand, name, typ, def string
	hasDefault                bool
}

// opmFlagLine matches a flag line: "  -p, --port string   usage (default "50051")".
var opmFlagLine = regexp.MustCompile(`^\s+(?:-(\w), )?--([\w-]+)(?: (\S+))?\s{2,}.*?(?: \(default (.*)\))?$`)

// pflag's type names as cobra prints them; any other word after a flag
// name is a back-quoted name from the usage text and says nothing about
// the type.
var pflagTypes = map[string]bool{"string": true, "strings": true, "stringArray": true, "int": true, "uint": true, "uint16": true, "duration": true, "stringToString": true}

// parseOPMHelp returns the flags (local and global) a recorded --help lists.
func parseOPMHelp(t *testing.T, text string) []opmFlag {
	t.Helper()
	var flags []opmFlag
	in := false
	for _, line := range strings.Split(text, "\n") {
		switch {
		case line == "Flags:" || line == "Global Flags:":
			in = true
			continue
		case line == "" || !strings.HasPrefix(line, " "):
			in = false
			continue
		}
		if !in {
			continue
		}
		m := opmFlagLine.FindStringSubmatch(line)
		if m == nil {
			continue // a continuation line of a long usage text
		}
		f := opmFlag{shorthand: m[1], name: m[2], typ: m[3], def: strings.Trim(m[4], `"`), hasDefault: m[4] != ""}
		flags = append(flags, f)
	}
	return flags
}

// findCommand walks root by command names (no argument parsing).
func findCommand(root *cobra.Command, path []string) *cobra.Command {
	c := root
	for _, name := range path {
		var next *cobra.Command
		for _, sub := range c.Commands() {
			if sub.Name() == name {
				next = sub
			}
		}
		if next == nil {
			return nil
		}
		c = next
	}
	return c
}

// zeroDefault reports whether a flag's default is one cobra does not print.
func zeroDefault(f *pflag.Flag) bool {
	switch f.DefValue {
	case "", "false", "0", "[]":
		return true
	}
	return false
}

// TestOPMFlags holds olmcat to opm v1.73's command tree: every command of
// the recorded --help texts exists, with every flag of the same name, shorthand, default and kind (a bool
// stays a bool, a comma list a comma list).
func TestOPMFlags(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(opmHelpDir, "opm*.txt"))
	require.NoError(t, err)
	require.Greater(t, len(files), 30, "recorded help texts")
	root := newRootCmd()
	root.InitDefaultCompletionCmd() // cobra adds these when executing
	for _, file := range files {
		words := strings.Split(strings.TrimSuffix(filepath.Base(file), ".txt"), "-")[1:]
		path := commandPath(words)
		name := strings.Join(path, " ")
		t.Run("opm "+name, func(t *testing.T) {
			cmd := findCommand(root, path)
			require.NotNil(t, cmd, "olmcat has no command %q", name)
			cmd.InitDefaultHelpFlag()
			text, err := os.ReadFile(file)
			require.NoError(t, err)
			for _, of := range parseOPMHelp(t, string(text)) {
				checkOPMFlag(t, name, cmd, of)
			}
		})
	}
}

// commandPath turns the words of a help file name back into command
// names: opm's commands with a dash in their name are joined again.
func commandPath(words []string) []string {
	dashed := map[string]bool{"render-graph": true, "render-template": true, "convert-template": true, "prune-stranded": true}
	var path []string
	for i := 0; i < len(words); i++ {
		if i+1 < len(words) && dashed[words[i]+"-"+words[i+1]] {
			path = append(path, words[i]+"-"+words[i+1])
			i++
			continue
		}
		path = append(path, words[i])
	}
	return path
}

// checkOPMFlag compares one of opm's flags with olmcat's of that name.
func checkOPMFlag(t *testing.T, cmdName string, cmd *cobra.Command, of opmFlag) {
	t.Helper()
	key := cmdName + " --" + of.name
	f := cmd.Flag(of.name)
	if !assert.NotNil(t, f, "%s: olmcat lacks the flag", key) {
		return
	}
	assert.Equal(t, of.shorthand, f.Shorthand, "%s: shorthand", key)
	if _, ok := opmDefaultsDiffer[key]; !ok {
		if of.hasDefault {
			assert.Equal(t, of.def, strings.Trim(f.DefValue, `"`), "%s: default", key)
		} else {
			assert.True(t, zeroDefault(f), "%s: opm has no default, olmcat has %q", key, f.DefValue)
		}
	}
	isBool := f.Value.Type() == "bool"
	switch {
	case of.typ == "":
		assert.True(t, isBool, "%s: a bool flag in opm, %s in olmcat", key, f.Value.Type())
	case of.typ == "strings":
		assert.Equal(t, "stringSlice", f.Value.Type(), "%s: a comma-separated list in opm", key)
	case pflagTypes[of.typ]:
		assert.False(t, isBool, "%s: takes a %s value in opm, a bool in olmcat", key, of.typ)
	}
}

func TestParseOPMHelp(t *testing.T) {
	text := "Usage:\n  opm x\n\nFlags:\n" +
		"  -b, --bundles strings         comma separated list\n" +
		"      --mode string             graph update mode (default \"replaces\")\n" +
		"      --migrate-level string    Name (default: none)\n" +
		"                                  - none    : do nothing\n" +
		"  -o, --overwrite false         To overwrite\n" +
		"      --permissive              allow errors\n" +
		"  -l, --datalimit uint          limit (default 1048576)\n\n" +
		"Global Flags:\n      --use-http   plain HTTP\n"
	want := []opmFlag{
		{shorthand: "b", name: "bundles", typ: "strings"},
		{name: "mode", typ: "string", def: "replaces", hasDefault: true},
		{name: "migrate-level", typ: "string"},
		{shorthand: "o", name: "overwrite", typ: "false"},
		{name: "permissive"},
		{shorthand: "l", name: "datalimit", typ: "uint", def: "1048576", hasDefault: true},
		{name: "use-http"},
	}
	require.Equal(t, want, parseOPMHelp(t, text))
	require.Equal(t, []string{"alpha", "render-graph"}, commandPath([]string{"alpha", "render", "graph"}))
	require.Equal(t, []string{"index", "prune-stranded"}, commandPath([]string{"index", "prune", "stranded"}))
	require.Equal(t, []string{"index", "prune"}, commandPath([]string{"index", "prune"}))
}
