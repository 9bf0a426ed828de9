//go:build !slim

package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/operator-catalog/olmcat/internal/pathcheck"
	"github.com/operator-catalog/olmcat/internal/writelock"
)

// waitLockFlag is the --wait-lock flag of every command that writes a
// directory output: how long to wait for another olmcat process writing
// the same output. Unset, the command waits until the other is done.
type waitLockFlag struct {
	d   time.Duration
	set bool
}

func (w *waitLockFlag) String() string {
	if !w.set {
		return ""
	}
	return w.d.String()
}

func (w *waitLockFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	w.d, w.set = d, true
	return nil
}

// Type is "duration", so that a negative value is refused as for every
// duration flag (refuseNegativeDurations).
func (w *waitLockFlag) Type() string { return "duration" }

// addWaitLockFlag adds --wait-lock to a writer's flags.
func addWaitLockFlag(fs *pflag.FlagSet) *waitLockFlag {
	w := &waitLockFlag{}
	fs.Var(w, "wait-lock", "how long to wait while another olmcat process writes the same output (0: fail at once; default: wait until it is done)")
	return w
}

// lock takes the write lock of the output out before the command reads
// anything (internal/writelock), so that a second writer of out runs on
// the first one's result. While another process holds it, one note on
// stderr names that process; when --wait-lock runs out the command fails
// with exit code 1, having written nothing (w nil: wait until it is
// done). An output that is, holds or
// lies in one of the inputs gets no lock (nil, which Release accepts):
// the lock file would change an input, and the writer refuses that
// output itself before it writes.
func (w *waitLockFlag) lock(cmd *cobra.Command, out string, inputs ...string) (*writelock.Lock, error) {
	if pathcheck.Separate("output", out, inputs...) != nil {
		return nil, nil
	}
	o := writelock.Options{Wait: -1}
	if w != nil && w.set {
		o.Wait = w.d
	}
	stderr := cmd.ErrOrStderr()
	o.OnWait = func(h writelock.Holder) {
		fmt.Fprintf(stderr, "waiting for %s, which is writing %s (--wait-lock bounds the wait)\n", h, out)
	}
	l, err := writelock.Acquire(cmd.Context(), out, o)
	var busy *writelock.BusyError
	switch {
	case errors.As(err, &busy):
		return nil, &exitError{code: exitInvalid, err: fmt.Errorf("%w; nothing was written (rerun when it is done, or with a longer --wait-lock)", err)}
	case err != nil:
		return nil, &exitError{code: exitInvalid, err: err}
	}
	return l, nil
}
