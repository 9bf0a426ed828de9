package main

import (
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress reports the advance of long work on stderr when stderr is a
// terminal, and does nothing otherwise (pipes, CI logs).
type progress struct {
	bar *progressbar.ProgressBar
}

// newProgress starts a progress bar of total steps described by desc. It
// returns a silent progress when w is not a terminal or quiet is set.
func newProgress(w io.Writer, total int, desc string, quiet bool) *progress {
	f, ok := w.(*os.File)
	if quiet || !ok || !term.IsTerminal(int(f.Fd())) {
		return &progress{}
	}
	bar := progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(100_000_000),
	)
	return &progress{bar: bar}
}

// Add advances the bar by n steps. It is safe for concurrent use.
func (p *progress) Add(n int) {
	if p.bar != nil {
		_ = p.bar.Add(n)
	}
}

// Done finishes and clears the bar.
func (p *progress) Done() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
