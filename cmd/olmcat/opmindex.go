//go:build !slim

package main

import (
	"github.com/spf13/cobra"
)

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
