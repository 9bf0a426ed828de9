package main

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"
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
