package main

import (
	"github.com/spf13/cobra"
)

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
