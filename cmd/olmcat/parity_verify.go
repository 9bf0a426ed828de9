//go:build !slim

package main

import (
	"context"
	"fmt"
	"io"

	"github.com/operator-catalog/olmcat/cmd/olmcat/internal/report"
	"github.com/operator-catalog/olmcat/registry/parity"
)

// verifyDiffs is how many differences a failed migrate --verify shows.
const verifyDiffs = 10

// verifyParity is the migrate --verify hook: parity of the database with
// the written (not yet committed) output directory. A loss fails the
// migration, which then leaves no output behind.
func verifyParity(stderr io.Writer, dbPath string) func(ctx context.Context, dir string) error {
	return func(ctx context.Context, dir string) error {
		res, err := parity.Check(ctx, dbPath, dir, parity.WithMaxDiffs(verifyDiffs),
			parity.WithProgress(&parityProgress{w: stderr, desc: "verifying parity"}))
		if err != nil {
			return fmt.Errorf("verify: %w", err)
		}
		if res.OK(false) {
			fmt.Fprintf(stderr, "verified: %d calls, no loss (%d with benign differences)\n", res.Calls, res.BenignCalls)
			return nil
		}
		if err := report.WriteParityText(stderr, res, verifyDiffs, false); err != nil {
			return fmt.Errorf("verify: write result: %w", err)
		}
		return &exitError{code: exitInvalid, err: fmt.Errorf("verify: %w", res.Err(false))}
	}
}

// parityProgress adapts the terminal progress bar to parity.Progress: the
// bar is created once the number of calls is known.
type parityProgress struct {
	w    io.Writer
	desc string
	bar  *progress
}

// Start implements parity.Progress: one step per package, and one for
// the catalog-wide calls.
func (p *parityProgress) Start(total int) {
	desc := p.desc
	if desc == "" {
		desc = "parity"
	}
	p.bar = newProgress(p.w, total, desc, false)
}
func (p *parityProgress) Add(n int) {
	if p.bar != nil {
		p.bar.Add(n)
	}
}
func (p *parityProgress) Done() {
	if p.bar != nil {
		p.bar.Done()
	}
}
