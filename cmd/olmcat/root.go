package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

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
