//go:build !slim

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/cmd/olmcat/internal/report"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/internal/runtimetune"
	"github.com/operator-catalog/olmcat/registry/parity"
)

func newParityCmd(img *imageFlags) *cobra.Command {
	f := &parityFlags{}
	cmd := &cobra.Command{
		Use:   "parity <left> <right>",
		Short: "Check that two catalogs answer the registry gRPC API the same way",
		Long: `Serve two catalogs and compare their answers to every api.Registry RPC.

Each side is a legacy sqlite index, a declarative config directory, a
catalog image or a live server (grpc://host:port). Local sides are answered in
process by the server olmcat serve uses (--loopback: over gRPC on 127.0.0.1).
The check runs package by package, so memory does not grow with the catalog. Every package, channel, bundle, replaced or skipped
name and provided or required GVK of either side is queried, plus not-found
probes; answers are compared as data (unordered lists as sets, JSON values
parsed).

Each difference is a loss, or a known benign difference between the sqlite and
the declarative config servers, named by its rule (see the "Rules seen"
section). Those rules apply only between a sqlite and a declarative config
backend: between two sides of the same kind every difference is a loss. A
live server's backend is not detectable, so a grpc:// side needs --left-kind or
--right-kind (sqlite or declcfg). Besides the calls, the upgrade graph of every
channel (entries, replaces, skips, skipRange) is compared directly; any graph
difference is a loss, whatever the per-call rules say. Exit status: 0 parity,
1 a loss (or, with --strict, any difference), 2 usage.`,
		Example: `  olmcat parity index.db ./catalog
  olmcat parity index.db grpc://localhost:50051 --right-kind declcfg -o json > parity.json
  olmcat parity ./old-catalog ./new-catalog --strict
  olmcat parity index.db ./catalog -o junit > parity-junit.xml`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error { return runParity(cmd, args, f) },
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.output, "output", "o", "text", "output format: text (summary table and first differences), json (the full result), junit (JUnit XML: a test suite per package, a test case per RPC) or github (GitHub Actions error annotations on the catalog's files and lines); all but text are written as the check runs")
	fl.BoolVar(&f.strict, "strict", false, "fail on benign differences too")
	fl.IntVar(&f.maxDiffs, "max-diffs", 10, "differences shown in text output (losses first); with -o json, only when given: differences written (in the order found)")
	fl.IntVar(&f.concurrency, "concurrency", parity.DefaultConcurrency, "calls made at once")
	fl.BoolVar(&f.loopback, "loopback", false, "serve local sides over gRPC on 127.0.0.1 and query them through the wire (slower; the answers are the same)")
	fl.StringVar(&f.kinds[0], "left-kind", "", "backend of a grpc:// left side: sqlite or declcfg (required for a live server; local sides are detected)")
	fl.StringVar(&f.kinds[1], "right-kind", "", "backend of a grpc:// right side: sqlite or declcfg (required for a live server; local sides are detected)")
	fl.StringVar(&f.reportHTML, "report-html", "", "also write the result as one self-contained HTML page (per-RPC table, differences grouped by rule) to `FILE`")
	fl.BoolVar(&f.force, "force", false, "replace an existing --report-html file")
	fl.BoolVar(&f.noWarning, "no-deprecation-warning", false, "do not print the sqlite deprecation warning (also "+noDeprecationWarningEnv+"=1)")
	f.imgFlags = img
	takesImages(cmd, imageSourceFlags)
	return cmd
}

// htmlDiffsPerRule bounds the differences the --report-html page lists
// per rule (each rule's count covers them all).
const htmlDiffsPerRule = 200

// parityFlags are the flags of olmcat parity.
type parityFlags struct {
	output      string
	strict      bool
	maxDiffs    int
	concurrency int
	noWarning   bool
	imgFlags    *imageFlags
	reportHTML  string
	force       bool
	kinds       [2]string // --left-kind, --right-kind
	loopback    bool
}

// sideKinds checks --left-kind and --right-kind: each is sqlite, declcfg
// or empty, and a grpc:// side must have one (the rules that explain
// sqlite vs declarative config differences apply only between those two).
func (f *parityFlags) sideKinds(stderr io.Writer, args []string) ([2]input.Kind, error) {
	var out [2]input.Kind
	for i, flag := range []string{"--left-kind", "--right-kind"} {
		k := input.Kind(f.kinds[i])
		if k != "" && k != input.KindSQLite && k != input.KindDeclcfg {
			return out, fmt.Errorf("%s %q: want %s or %s", flag, k, input.KindSQLite, input.KindDeclcfg)
		}
		in, err := input.Classify(args[i])
		if err == nil {
			tellFinished(stderr, in)
		}
		if err == nil && in.Kind == input.KindGRPC && k == "" {
			return out, fmt.Errorf("%s is a live server: pass %s %s or %s %s (the sqlite vs declarative config rules apply only between those two backends)",
				args[i], flag, input.KindSQLite, flag, input.KindDeclcfg)
		}
		out[i] = k
	}
	return out, nil
}

// openPage opens the --report-html file, nil without the flag; it may not
// be or lie inside a local side.
func (f *parityFlags) openPage(args []string) (*reportFile, error) {
	if f.reportHTML == "" {
		return nil, nil
	}
	var local []string
	for _, ref := range args {
		if in, err := input.Classify(ref); err == nil && in.Kind != input.KindGRPC {
			local = append(local, ref)
		}
	}
	return openReportFile(f.reportHTML, "", f.force, local...)
}

// checkOptions returns the check's options for the flags: -o json,
// junit and github are written to stdout while the check runs
// (--max-diffs bounds -o json only when given, so that it stays the full
// result; github annotations point into cat when it is not nil); the
// text output keeps the first --max-diffs; with a page, up to
// htmlDiffsPerRule differences per rule are kept for it (samples).
// The junit and github reports are returned as ci, to be aborted when
// the check fails.
func (f *parityFlags) checkOptions(cmd *cobra.Command, kinds [2]input.Kind, stdout io.Writer, cat *report.Catalog, page bool) (opts []parity.Option, samples *parity.RuleSamples, ci report.Aborter) {
	opts = []parity.Option{parity.WithConcurrency(f.concurrency), parity.WithKinds(kinds[0], kinds[1]), parity.WithLoopback(f.loopback)}
	switch f.output {
	case "json":
		limit := -1
		if cmd.Flags().Changed("max-diffs") {
			limit = f.maxDiffs
		}
		opts = append(opts, parity.WithReport(report.ParityJSON(stdout, limit)), parity.WithMaxDiffs(0))
	case "junit":
		rep := report.ParityJUnit(stdout, f.strict)
		opts, ci = append(opts, parity.WithReport(rep), parity.WithMaxDiffs(0)), rep
	case "github":
		rep := report.ParityGitHub(stdout, f.strict, cat)
		opts, ci = append(opts, parity.WithReport(rep), parity.WithMaxDiffs(0)), rep
	default:
		opts = append(opts, parity.WithMaxDiffs(f.maxDiffs))
	}
	if page {
		samples = &parity.RuleSamples{PerRule: htmlDiffsPerRule}
		opts = append(opts, parity.WithReport(samples))
	}
	return opts, samples, ci
}

// runParity checks the two sides and prints the result.
func runParity(cmd *cobra.Command, args []string, f *parityFlags) error {
	switch f.output {
	case "text", "json", "junit", "github":
	default:
		return usageError(fmt.Errorf("-o %q: want text, json, junit or github", f.output))
	}
	if f.concurrency < 1 {
		return usageError(fmt.Errorf("--concurrency %d: want 1 or more", f.concurrency))
	}
	if f.maxDiffs < 0 {
		return usageError(fmt.Errorf("--max-diffs %d: want 0 or more", f.maxDiffs))
	}
	kinds, err := f.sideKinds(cmd.ErrOrStderr(), args)
	if err != nil {
		return usageError(err)
	}
	page, err := f.openPage(args)
	if err != nil {
		return usageError(err)
	}
	defer page.discard()
	runtimetune.Enter(cmd.Context(), runtimetune.Parity)
	stdout := bufio.NewWriterSize(cmd.OutOrStdout(), 1<<16)
	defer stdout.Flush()
	res, samples, err := f.check(cmd, args, kinds, stdout, page != nil)
	if err != nil {
		return err
	}
	if f.output == "text" {
		err = report.WriteParityText(stdout, res, f.maxDiffs, f.strict)
	}
	if err == nil {
		err = stdout.Flush()
	}
	if err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	if page != nil {
		shown := *res
		shown.Diffs = samples.Diffs
		if err := page.write(func(w io.Writer) error { return report.WriteParity(w, &shown) }); err != nil {
			return err
		}
	}
	if !res.OK(f.strict) {
		what := fmt.Sprintf("%d of %d calls lost data", res.LossCalls, res.Calls)
		if res.LossCalls == 0 {
			what = fmt.Sprintf("%d of %d calls differ (benign, failing with --strict)", res.BenignCalls, res.Calls)
		}
		return &exitError{code: exitInvalid, err: errors.New("parity check failed: " + what)}
	}
	return nil
}

// check loads the two sides and runs the check, streaming -o json,
// junit and github to stdout. A run that stops before its result ends
// the junit or github report with the error (report.Aborter), so that
// CI reads why.
func (f *parityFlags) check(cmd *cobra.Command, args []string, kinds [2]input.Kind, stdout *bufio.Writer, page bool) (*parity.Result, *parity.RuleSamples, error) {
	var ci report.Aborter
	fail := func(err error) (*parity.Result, *parity.RuleSamples, error) {
		switch {
		case ci != nil:
		case f.output == "junit":
			ci = report.ParityJUnit(stdout, f.strict)
		case f.output == "github":
			ci = report.ParityGitHub(stdout, f.strict, nil)
		default:
			return nil, nil, err
		}
		_ = ci.Abort(fmt.Sprintf("olmcat parity %s vs %s", args[0], args[1]), errorText(err))
		_ = stdout.Flush()
		return nil, nil, err
	}
	sides, cleanup, err := f.localSides(cmd, args)
	defer cleanup()
	if err != nil {
		return fail(err)
	}
	var cat *report.Catalog
	if f.output == "github" {
		if cat, err = annotatedCatalog(cmd.Context(), args, sides); err != nil {
			return fail(err)
		}
	}
	opts, samples, ci := f.checkOptions(cmd, kinds, stdout, cat, page)
	opts = append(opts, parity.WithProgress(&parityProgress{w: cmd.ErrOrStderr()}))
	res, err := parity.Check(cmd.Context(), sides[0], sides[1], opts...)
	if err != nil {
		return fail(err)
	}
	return res, samples, nil
}

// localSides resolves the two sides: a catalog image is pulled and
// unpacked (cleanup removes it), anything else is passed on as given.
func (f *parityFlags) localSides(cmd *cobra.Command, args []string) (sides [2]string, cleanup func(), err error) {
	var closers []func()
	cleanup = func() {
		for _, c := range closers {
			c()
		}
	}
	sides = [2]string{args[0], args[1]}
	for i, ref := range args {
		// An input Resolve cannot tell is reported by Check.
		local, err := f.imgFlags.resolve(cmd.Context(), ref, input.Catalog, "parity", cmd.ErrOrStderr())
		if err != nil {
			if err = inputError(err, func(error) error { return nil }); err == nil {
				continue
			}
			return sides, cleanup, err
		}
		closers = append(closers, func() { local.Close() })
		sides[i] = local.Path
		if local.Kind == input.KindSQLite && !f.noWarning {
			warnDeprecated(cmd.Context(), cmd.ErrOrStderr(), ref, local.Path, imageFlagArgs(cmd.Flags()))
		}
	}
	return sides, cleanup, nil
}

// annotatedCatalog is the side -o github annotations point into: the
// right side when it is a declarative config directory named on the
// command line (what a pull request changes), else the left one; nil
// when neither is (an image's files are not the user's).
func annotatedCatalog(ctx context.Context, args []string, sides [2]string) (*report.Catalog, error) {
	for _, i := range []int{1, 0} {
		in, err := input.Classify(args[i])
		if err != nil || in.Kind != input.KindDeclcfg || sides[i] != args[i] {
			continue
		}
		loc, err := declcfg.NewLocator(ctx, args[i])
		if err != nil {
			return nil, err
		}
		return &report.Catalog{Dir: args[i], Locator: loc}, nil
	}
	return nil, nil
}

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
