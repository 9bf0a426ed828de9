//go:build !slim

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/input"
)

// How the CLI runs the library's actions (package action): actionEnv is
// what every action gets from the command, actionError what the command
// returns of an action's error.

// actionEnv is the action.Env of cmd: its lines and pull progress on
// stderr, the write lock --wait-lock bounds (wait nil: the action takes
// none), images pulled with the image flags.
func actionEnv(cmd *cobra.Command, img *imageFlags, wait *waitLockFlag) action.Env {
	stderr := cmd.ErrOrStderr()
	env := action.Env{
		Log:          lineWriter(stderr),
		Progress:     func(desc string) image.Progress { return &pullProgress{w: stderr, desc: desc} },
		ImageOptions: img.actionOptions,
	}
	if wait != nil {
		env.Lock = func(_ context.Context, out string, inputs ...string) (func(), error) {
			l, err := wait.lock(cmd, out, inputs...)
			if err != nil {
				return nil, err
			}
			return func() { l.Release() }, nil
		}
	}
	return env
}

// actionOptions are the image options of the flags for an action (a
// usage error if bad).
func (f *imageFlags) actionOptions() ([]image.Option, error) {
	opts, err := f.options()
	if err != nil {
		return nil, usageError(err)
	}
	return opts, nil
}

// lineWriter is the function printing each line it gets on w.
func lineWriter(w io.Writer) func(string) { return func(line string) { fmt.Fprintln(w, line) } }

// actionExitCodes are the exit codes of the kinds of action errors.
var actionExitCodes = map[action.Kind]int{
	action.KindFailed:  exitInvalid,
	action.KindUsage:   exitUsage,
	action.KindPartial: exitInvalid,
}

// actionHints name the flag that sets the option resolving an action's
// error (action.Error.Option): each turns the error's text into the
// CLI's.
var actionHints = map[string]func(msg string) string{
	"Generate.Force":        func(m string) string { return m + ": pass --force to replace it" },
	"Generate.Dockerfile":   func(m string) string { return "--out-dockerfile: " + m },
	"RegistryEdit.Output":   func(m string) string { return m + " (pass --output DIR)" },
	"RegistryEdit.Database": func(m string) string { return "--database " + m },
	"Build.Force":           func(m string) string { return m + " (--force replaces it)" },
	"Build.Ref":             func(m string) string { return m + " (write an OCI layout with --push=false --oci-layout DIR)" },
	"BundleBuild.Force":     func(m string) string { return m + " (--force replaces it)" },

	"Render.ImageRefTemplate": func(m string) string { return "--alpha-image-ref-template: " + m },

	"Parity.LeftKind":  kindFlag("left"),
	"Parity.RightKind": kindFlag("right"),
}

// kindFlag words the errors of a side's kind (action.Parity.Check) with
// its flag, --<side>-kind.
func kindFlag(side string) func(msg string) string {
	flag := "--" + side + "-kind"
	return func(m string) string {
		m = strings.Replace(m, side+" kind ", flag+" ", 1)
		return strings.Replace(m, action.NameKind, "pass "+flag+" sqlite or "+flag+" declcfg", 1)
	}
}

// actionError is err, an action's error, as the command returns it: with
// the exit code of its kind (or of the CLI's own error it carries), the
// flag that resolves it, a failed pull naming the flag that changes it,
// and a bundle image where a catalog is wanted naming the command to run
// instead (verb names the command refusing it).
func actionError(err error, verb string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	var (
		ae *action.Error
		pe *input.PullError
		be *input.BundleError
		ee *exitError
	)
	if errors.As(err, &ae) && actionHints[ae.Option] != nil {
		msg = replaceLast(msg, ae.Error(), actionHints[ae.Option](ae.Error()))
	}
	if errors.As(err, &pe) {
		msg = replaceLast(msg, pe.Error(), imageError(pe.Err).Error())
	}
	if errors.As(err, &be) {
		msg = replaceLast(msg, be.Error(), refuseBundleError(be, verb).Error())
	}
	code := actionExitCodes[action.KindOf(err)]
	if errors.As(err, &ee) {
		code = ee.code
	}
	var out error = &wordedError{msg: msg, err: err}
	if action.KindOf(err) == action.KindPartial {
		out = partialWrite{out}
	}
	return &exitError{code: code, err: out}
}

// replaceLast replaces the last old in s with new.
func replaceLast(s, old, new string) string {
	i := strings.LastIndex(s, old)
	if i < 0 {
		return s
	}
	return s[:i] + new + s[i+len(old):]
}

// wordedError is err with the CLI's text.
type wordedError struct {
	msg string
	err error
}

func (e *wordedError) Error() string { return e.msg }
func (e *wordedError) Unwrap() error { return e.err }
