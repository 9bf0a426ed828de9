package action

import (
	"cmp"
	"context"

	"github.com/operator-catalog/olmcat/declcfg"
)

// Convert rewrites a declarative config directory in another layout or
// format: the whole catalog is read, then written to a temporary
// directory renamed into place (From is never written; a non-empty To is
// replaced only with Force).
type Convert struct {
	Env
	// From is the catalog directory read, To the directory written.
	From, To string
	// Layout and Format are those of To; zero: opm's layout, JSON.
	Layout declcfg.Layout
	Format declcfg.Format
	Force  bool
}

// ConvertResult is what a Convert did (nothing more to tell than that it
// succeeded).
type ConvertResult struct{}

// Run takes To's lock, reads From and writes To, showing the packages
// written through Env.Progress("convert").
func (c Convert) Run(ctx context.Context) (ConvertResult, error) {
	release, err := c.lock(ctx, c.To, c.From)
	if err != nil {
		return ConvertResult{}, err
	}
	defer release()
	cfg, err := declcfg.LoadDir(ctx, c.From)
	if err != nil {
		return ConvertResult{}, err
	}
	// The bar counts packages: the writer tells each one written.
	written := func(string) {}
	if c.Progress != nil {
		bar := c.Progress("convert")
		bar.Start(int64(len(declcfg.SplitByPackage(cfg))))
		defer bar.Done()
		written = func(string) { bar.Add(1) }
	}
	err = declcfg.WriteDir(cfg, c.To, declcfg.WithInputs(c.From), declcfg.WithOnAbandonedRemoved(c.log),
		declcfg.WithLayout(cmp.Or(c.Layout, declcfg.LayoutOPM)), declcfg.WithFormat(cmp.Or(c.Format, declcfg.FormatJSON)),
		declcfg.WithForce(c.Force), declcfg.WithOnPackageWritten(written))
	return ConvertResult{}, err
}
