// Package pollwatch owns how a server notices that the files it serves
// changed: a cheap fingerprint of them, taken when they are loaded and
// then polled at an interval. Both servers (the registry gRPC API and the
// catalogd HTTP API) watch through it, so they see the same changes the
// same way.
//
// Polling rather than inotify: inotify needs a watch on every
// subdirectory, added as directories appear (racing with the writes in
// them), loses events when its queue overflows and does not see the
// catalog directory itself renamed or replaced; a fingerprint compares
// the state as it is, whatever happened in between, at the cost of a
// stat per file per interval.
package pollwatch

import (
	"context"
	"time"
)

// Fingerprint digests the served files; it fails when they cannot be
// read (the catalog was removed, a writer is at work).
type Fingerprint func() (string, error)

// Watch is the fingerprint of the files being served, compared with the
// files as they are. It is used by one goroutine at a time.
type Watch struct {
	take Fingerprint
	// cur is the fingerprint of the files served, or the error taking
	// it gave since, as a state of its own: a catalog that stays
	// unreadable is one change, not one per poll.
	cur string
}

// Start takes the fingerprint of the files about to be loaded. A
// fingerprint that fails now is a state like any other: the first poll
// that differs is a change.
func Start(take Fingerprint) *Watch {
	w := &Watch{take: take}
	w.cur, _ = w.now()
	return w
}

// now is the fingerprint, or its error as a state.
func (w *Watch) now() (string, error) {
	fp, err := w.take()
	if err != nil {
		return "error: " + err.Error(), err
	}
	return fp, nil
}

// Run polls every interval until ctx ends and calls changed each time
// the files differ from the last state seen, with the error taking the
// fingerprint gave (nil when the files are readable: a reload can
// start). changed runs on Run's goroutine: the next poll waits for it.
func (w *Watch) Run(ctx context.Context, interval time.Duration, changed func(ctx context.Context, err error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		fp, err := w.now()
		if fp == w.cur {
			continue
		}
		w.cur = fp
		changed(ctx, err)
	}
}

// Unchanged reports whether the files are still as at the last change
// Run reported (or at Start): a reload that finds them changed again
// drops what it loaded, and the next poll reloads.
func (w *Watch) Unchanged() bool {
	fp, _ := w.now()
	return fp == w.cur
}
