package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/input"
)

// resolve resolves the argument ref of a command (resolveInput) and
// prints what Resolve noticed of a local path as every command prints it.
func (f *imageFlags) resolve(ctx context.Context, ref string, want input.Want, verb string, stderr io.Writer, opts ...input.Option) (*input.Input, error) {
	in, err := f.resolveInput(ctx, ref, want, verb, stderr, opts...)
	if err != nil {
		return nil, err
	}
	tellNotes(stderr, in)
	return in, nil
}

// resolveInput resolves the argument ref of a command (input.Resolve): an
// image is pulled with the image flags, its progress and notes on stderr.
// A pull failure is exit 1 naming the flag that changes it; a
// bundle image where a catalog is wanted is exit 1 naming the command to
// run instead (verb names the command refusing it). The other errors
// (telling what ref is, *input.NotBundleError) are returned as they are,
// for the caller to word (inputError). The caller closes the input.
func (f *imageFlags) resolveInput(ctx context.Context, ref string, want input.Want, verb string, stderr io.Writer, opts ...input.Option) (*input.Input, error) {
	in, err := input.Resolve(ctx, ref, want, append([]input.Option{f.pullOptions(stderr)}, opts...)...)
	var pe *input.PullError
	var be *input.BundleError
	switch {
	case errors.As(err, &pe):
		return nil, &exitError{code: exitInvalid, err: imageError(pe.Err)}
	case errors.As(err, &be) && be.Image:
		return nil, refuseBundle(be.Ref, verb)
	}
	return in, err
}

// pullOptions are the options images are pulled with: the image flags
// (a usage error if bad, only once an image is pulled), a progress bar and
// the notes of the pull on stderr.
func (f *imageFlags) pullOptions(stderr io.Writer) input.Option {
	return input.WithImageOptions(func(ref string) ([]image.Option, error) {
		opts, err := f.options()
		if err != nil {
			return nil, usageError(err)
		}
		return append(opts, image.WithProgress(&pullProgress{w: stderr, desc: "pulling " + ref}),
			image.WithNotes(func(s string) { fmt.Fprintln(stderr, "note:", s) })), nil
	})
}

// inputError is err of resolve as the command returns it: word words the
// errors resolve leaves to the caller (nil stays nil).
func inputError(err error, word func(error) error) error {
	var ee *exitError
	if err == nil || errors.As(err, &ee) {
		return err
	}
	return word(err)
}

// refuseBundle is the error of commands that need a catalog when given the
// bundle image ref.
func refuseBundle(ref, verb string) error {
	return &exitError{code: exitInvalid, err: fmt.Errorf("%s %s: this is a bundle image (label %s), not a catalog; olmcat render %s prints its olm.bundle blob",
		verb, ref, annotation.Package, ref)}
}

// pullProgress shows the layer bytes an image extraction reads as a
// progress bar (on a terminal only, see newProgress).
type pullProgress struct {
	w    io.Writer
	desc string
	bar  *progress
}

func (p *pullProgress) Start(total int64) { p.bar = newProgress(p.w, int(total), p.desc, false) }
func (p *pullProgress) Add(n int64)       { p.bar.Add(int(n)) }
func (p *pullProgress) Done()             { p.bar.Done() }

// tellNotes prints what resolving in noticed: that a local path won over
// an image reference of the same name, and what was finished of a write of
// in that a killed run had committed.
func tellNotes(stderr io.Writer, in *input.Input) {
	if in.Note != "" {
		fmt.Fprintln(stderr, "note:", in.Note)
	}
	tellFinished(stderr, in)
}

// tellFinished prints what was finished of a write of in that a killed
// run had committed (input.Input.Finished).
func tellFinished(stderr io.Writer, in *input.Input) {
	for _, s := range in.Finished {
		fmt.Fprintln(stderr, s)
	}
}
