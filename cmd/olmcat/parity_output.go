//go:build !slim

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/cmd/olmcat/internal/report"
	"github.com/operator-catalog/olmcat/internal/reportfile"
	"github.com/operator-catalog/olmcat/registry/parity"
)

// htmlDiffsPerRule bounds the differences the --report-html page lists
// per rule (each rule's count covers them all).
const htmlDiffsPerRule = 200

// parityOutput writes a check's result as the flags ask: -o json, junit
// and github streamed (reports), text and the page at the end (finish).
type parityOutput struct {
	flags       *parityFlags
	stdout      *bufio.Writer
	maxDiffsSet bool
	ci          report.Aborter      // -o junit or github, once made
	samples     *parity.RuleSamples // the page's differences, with --report-html
}

// reports are the reports of -o json (--max-diffs bounds it only when
// given, so that it stays the full result), junit and github
// (annotations point into at when it is not nil), and the page's
// samples: up to htmlDiffsPerRule differences per rule.
func (o *parityOutput) reports(at *action.Located) []parity.Report {
	var reps []parity.Report
	switch o.flags.output {
	case "json":
		limit := -1
		if o.maxDiffsSet {
			limit = o.flags.maxDiffs
		}
		reps = append(reps, report.ParityJSON(o.stdout, limit))
	case "junit":
		rep := report.ParityJUnit(o.stdout, o.flags.strict)
		reps, o.ci = append(reps, rep), rep
	case "github":
		var cat *report.Catalog
		if at != nil {
			cat = &report.Catalog{Dir: at.Dir, Locator: at.Locator}
		}
		rep := report.ParityGitHub(o.stdout, o.flags.strict, cat)
		reps, o.ci = append(reps, rep), rep
	}
	if o.flags.reportHTML != "" {
		o.samples = &parity.RuleSamples{PerRule: htmlDiffsPerRule}
		reps = append(reps, o.samples)
	}
	return reps
}

// abort ends the junit or github report of a check that stopped before
// its result with err (report.Aborter), so that CI reads why.
func (o *parityOutput) abort(args []string, err error) {
	switch {
	case o.ci != nil:
	case o.flags.output == "junit":
		o.ci = report.ParityJUnit(o.stdout, o.flags.strict)
	case o.flags.output == "github":
		o.ci = report.ParityGitHub(o.stdout, o.flags.strict, nil)
	default:
		return
	}
	_ = o.ci.Abort(fmt.Sprintf("olmcat parity %s vs %s", args[0], args[1]), errorText(err))
	_ = o.stdout.Flush()
}

// finish prints the text output, writes the page and fails a check that
// found a loss (or, with --strict, any difference).
func (o *parityOutput) finish(res *parity.Result, page *reportfile.File) error {
	var err error
	if o.flags.output == "text" {
		err = report.WriteParityText(o.stdout, res, o.flags.maxDiffs, o.flags.strict)
	}
	if err == nil {
		err = o.stdout.Flush()
	}
	if err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	if page != nil {
		shown := *res
		shown.Diffs = o.samples.Diffs
		if err := page.Write(func(w io.Writer) error { return report.WriteParity(w, &shown) }); err != nil {
			return err
		}
	}
	if !res.OK(o.flags.strict) {
		what := fmt.Sprintf("%d of %d %s lost data", res.LossCalls, res.Calls, res.Unit())
		if res.LossCalls == 0 {
			what = fmt.Sprintf("%d of %d %s differ (benign, failing with --strict)", res.BenignCalls, res.Calls, res.Unit())
		}
		return &exitError{code: exitInvalid, err: errors.New("parity check failed: " + what)}
	}
	return nil
}
