package action

import (
	"errors"
	"fmt"
)

// Kind classifies an action's error for its caller: the CLI maps each
// kind to an exit code.
type Kind int

// The kinds of errors.
const (
	// KindFailed is the kind of every error not marked otherwise: an
	// input or output is invalid, a check failed, a write failed; nothing
	// was written.
	KindFailed Kind = iota
	// KindUsage: the options ask for what cannot work.
	KindUsage
	// KindPartial: the action failed after part of its output was
	// written, and the message says which part.
	KindPartial
)

// Error is an action's error with its kind and, when changing one option
// resolves it, that option.
type Error struct {
	Kind Kind
	// Option names the option that resolves the error as "Type.Field"
	// of the options struct holding it ("Generate.Force"), or is empty.
	Option string
	Err    error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// KindOf is the kind of err: that of the outermost *Error it wraps,
// else KindFailed.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindFailed
}

// usage marks err as a usage error resolved by option ("" for none).
func usage(option string, err error) error {
	return &Error{Kind: KindUsage, Option: option, Err: err}
}

// usagef is usage with a formatted error.
func usagef(option, format string, args ...any) error {
	return usage(option, fmt.Errorf(format, args...))
}
