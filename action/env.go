package action

import (
	"context"
	"errors"
	"fmt"

	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/input"
)

// Env is what an action asks of the program running it, beside its
// options. The zero Env tells nothing, shows no progress, takes no lock
// and pulls images with package image's defaults.
type Env struct {
	// Log receives the action's notes and progress, one whole line
	// (without its newline) per call, in order, as they happen.
	Log func(line string)
	// Progress, if set, shows the progress of the step desc tells (an
	// image pull: the bytes of its layers read).
	Progress func(desc string) image.Progress
	// Lock takes the write lock of an output before the action reads
	// anything it writes it from; nil takes none.
	Lock Locker
	// ImageOptions are the options images are pulled with (registries,
	// TLS, cache, platform, limits), asked for at each pull; an error is
	// returned as it is.
	ImageOptions func() ([]image.Option, error)
}

// Locker takes the write lock of output out, whose inputs are inputs
// (an output that is, holds or lies in an input gets no lock: the lock
// file would change the input, and the writer refuses that output
// anyway). release, never nil on success, drops it.
type Locker func(ctx context.Context, out string, inputs ...string) (release func(), err error)

// log sends a line to e.Log, if any.
func (e Env) log(line string) {
	if e.Log != nil {
		e.Log(line)
	}
}

// logf is log with a formatted line.
func (e Env) logf(format string, args ...any) { e.log(fmt.Sprintf(format, args...)) }

// lock takes the write lock of out through e.Lock (a no-op without it).
func (e Env) lock(ctx context.Context, out string, inputs ...string) (func(), error) {
	if e.Lock == nil {
		return func() {}, nil
	}
	return e.Lock(ctx, out, inputs...)
}

// resolve resolves argument ref (input.Resolve), pulling an image with
// the Env's options, progress and notes, and tells what it noticed of a
// local path; quiet shows and tells nothing. The errors of the pull
// (*input.PullError, *input.BundleError and those of ImageOptions,
// which pulled reports) are the caller's to return as they are; the
// others (telling what ref is, *input.NotBundleError) to word.
func (e Env) resolve(ctx context.Context, ref string, want input.Want, quiet bool, opts ...input.Option) (*input.Input, error) {
	in, err := input.Resolve(ctx, ref, want, append([]input.Option{e.pull(quiet)}, opts...)...)
	if err != nil {
		return nil, err
	}
	if !quiet {
		if in.Note != "" {
			e.log("note: " + in.Note)
		}
		for _, s := range in.Finished {
			e.log(s)
		}
	}
	return in, nil
}

// pull is the input option pulling an image with the Env's options,
// progress and notes (quiet: options only), for an action that tells
// what it noticed of a local path in its own way (resolve tells all).
func (e Env) pull(quiet bool) input.Option {
	return input.WithImageOptions(func(img string) ([]image.Option, error) {
		var iopts []image.Option
		if e.ImageOptions != nil {
			var err error
			if iopts, err = e.ImageOptions(); err != nil {
				return nil, &imageOptionsError{err}
			}
		}
		if quiet {
			return iopts, nil
		}
		if e.Progress != nil {
			iopts = append(iopts, image.WithProgress(e.Progress("pulling "+img)))
		}
		return append(iopts, image.WithNotes(func(s string) { e.log("note: " + s) })), nil
	})
}

// imageOptionsError marks an error of Env.ImageOptions.
type imageOptionsError struct{ error }

func (e *imageOptionsError) Unwrap() error { return e.error }

// pulled says whether err is an error of pulling an image (resolve).
func pulled(err error) bool {
	var (
		pe *input.PullError
		be *input.BundleError
		oe *imageOptionsError
	)
	return errors.As(err, &pe) || errors.As(err, &be) || errors.As(err, &oe)
}
