package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit codes shared by every command.
const (
	exitOK      = 0
	exitInvalid = 1 // invalid input or output, failed check
	exitUsage   = 2 // bad flags or arguments
)

// exitError carries a specific exit code to main.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError marks err as a usage problem (exit 2).
func usageError(err error) error { return &exitError{code: exitUsage, err: err} }

// allOrNothing are the commands (paths below the root) whose outputs are written whole or not at
// all: when one fails (exit 1), main says "nothing was written", once,
// unless the error says what was written (partialWrite) or says it
// already.
var allOrNothing = map[string]bool{
	"migrate": true, "convert": true, "add": true, "unpack": true,
	"generate dockerfile": true, "alpha convert-template": true,
	"index add": true, "index rm": true, "index prune": true,
	"index prune-stranded": true, "index deprecatetruncate": true, "index export": true,
	"registry add": true, "registry rm": true, "registry prune": true,
	"registry prune-stranded": true, "registry deprecatetruncate": true,
}

// partialWrite marks the error of a writer that the user was already told
// about what was (or was not) written: an output committed before a later
// one failed, or a summary that said "nothing was written".
type partialWrite struct{ error }

func (p partialWrite) Unwrap() error { return p.error }

// failedWriterText is msg for the error err of cmd: an all-or-nothing
// writer's failure says "nothing was written" at its end (on a line of
// its own after a list).
func failedWriterText(cmd *cobra.Command, err error, code int, msg string) string {
	var told partialWrite
	if cmd == nil || !allOrNothing[strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")] || code != exitInvalid || errors.As(err, &told) ||
		strings.Contains(msg, "nothing was written") {
		return msg
	}
	if strings.Contains(msg, "\n") {
		return msg + "\nnothing was written"
	}
	return msg + "; nothing was written"
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "olmcat",
		Short: "Read, migrate, validate and serve operator catalogs (legacy sqlite and declarative config)",
		Long: `olmcat works with operator-framework catalogs.

It reads legacy sqlite index databases at every schema level (read-only),
migrates them to declarative configs, validates, renders and converts
declarative configs, serves either kind with the operator-registry gRPC API,
and checks that two catalogs answer that API the same way.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionString(),
	}
	root.SetVersionTemplate("olmcat {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(err) })
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error { return refuseNegativeDurations(cmd) }
	img := newImageFlags()
	addCommands(root, img)
	img.register(root)
	refuseUnknownCommands(root)
	showUsageOnBadArgs(root)
	return root
}

// showUsageOnBadArgs makes every command's argument check add the
// command's usage line to its error: "accepts 2 arg(s), received 0" alone
// does not say which arguments are wanted. One wrapper over the whole
// tree, so that no command's own check can forget it.
func showUsageOnBadArgs(cmd *cobra.Command) {
	for _, sub := range cmd.Commands() {
		showUsageOnBadArgs(sub)
	}
	check := cmd.Args
	if check == nil || !cmd.Runnable() || cmd.HasSubCommands() {
		return
	}
	cmd.Args = func(c *cobra.Command, args []string) error {
		if err := check(c, args); err != nil {
			return usageError(fmt.Errorf("%w\nUsage: %s (see %s --help)", err, c.UseLine(), c.CommandPath()))
		}
		return nil
	}
}

// refuseUnknownCommands makes every command that only groups subcommands
// (the root, "bundle", ...) answer an unknown subcommand with a usage error
// (exit 2); cobra would return a plain error for the root and print help
// with exit 0 below it. Without arguments they print their help.
func refuseUnknownCommands(cmd *cobra.Command) {
	for _, sub := range cmd.Commands() {
		refuseUnknownCommands(sub)
	}
	if !cmd.HasSubCommands() || cmd.Runnable() {
		return
	}
	cmd.Args = cobra.ArbitraryArgs
	// cobra's own lookup suggests within 2 edits, but SuggestionsFor
	// only does with the distance set (0 finds prefixes alone).
	cmd.SuggestionsMinimumDistance = 2
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if len(args) == 0 && !c.HasParent() {
			return c.Help()
		}
		if len(args) == 0 {
			// A group without its subcommand is incomplete: the help goes
			// to stderr with a usage exit code.
			c.SetOut(c.ErrOrStderr())
			_ = c.Help()
			return usageError(fmt.Errorf("%s needs a subcommand (see %s --help)", c.CommandPath(), c.CommandPath()))
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
		if s := c.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, " or ") + "?"
		}
		return usageError(errors.New(msg + " (see " + c.CommandPath() + " --help)"))
	}
}

// refuseNegativeDurations makes a negative duration flag (a timeout, an
// interval) a usage error for every command, rather than an error of
// whatever uses it later.
func refuseNegativeDurations(cmd *cobra.Command) error {
	var err error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if err != nil || !f.Changed || f.Value.Type() != "duration" {
			return
		}
		if d, perr := time.ParseDuration(f.Value.String()); perr == nil && d < 0 {
			err = usageError(fmt.Errorf("--%s %s: must not be negative", f.Name, f.Value.String()))
		}
	})
	return err
}

// exactArgs is cobra.ExactArgs with a usage exit code.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return usageError(err)
		}
		return nil
	}
}

// minArgs is cobra.MinimumNArgs with a usage exit code.
func minArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.MinimumNArgs(n)(cmd, args); err != nil {
			return usageError(err)
		}
		return nil
	}
}

// noArgsRequiredFlags takes no arguments and makes a missing required
// flag a usage error (exit 2), as a bad flag is; cobra would check the
// required flags after the arguments and return a plain error.
func noArgsRequiredFlags(cmd *cobra.Command, args []string) error {
	if err := exactArgs(0)(cmd, args); err != nil {
		return err
	}
	if err := cmd.ValidateRequiredFlags(); err != nil {
		return usageError(err)
	}
	return nil
}

// rangeArgs is cobra.RangeArgs with a usage exit code.
func rangeArgs(lo, hi int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.RangeArgs(lo, hi)(cmd, args); err != nil {
			return usageError(err)
		}
		return nil
	}
}
