package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/internal/atomicfile"
	"github.com/operator-catalog/olmcat/internal/htmlreport"
	"github.com/operator-catalog/olmcat/registry/parity"
	"github.com/operator-catalog/olmcat/registry/source"
)

func newParityCmd() *cobra.Command {
	var (
		output      string
		strict      bool
		maxDiffs    int
		concurrency int
		noWarning   bool
		imgFlags    *imageFlags
		reportHTML  string
		force       bool
	)
	cmd := &cobra.Command{
		Use:   "parity <left> <right>",
		Short: "Check that two catalogs answer the registry gRPC API the same way",
		Long: `Serve two catalogs and compare their answers to every api.Registry RPC.

Each side is a legacy sqlite index, a declarative config directory, a
catalog image or a live server (grpc://host:port). Local sides are served in-process on 127.0.0.1, so
the wire is checked too. Every package, channel, bundle, replaced or skipped
name and provided or required GVK of either side is queried, plus not-found
probes; answers are compared as data (unordered lists as sets, JSON values
parsed).

Each difference is a loss, or a known benign difference between the sqlite and
the declarative config servers, named by its rule (see the "Rules seen"
section). Exit status: 0 parity, 1 a loss (or, with --strict, any difference),
2 usage.`,
		Example: `  olmcat parity index.db ./catalog
  olmcat parity index.db grpc://localhost:50051 -o json > parity.json
  olmcat parity ./old-catalog ./new-catalog --strict`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "text" && output != "json" {
				return usageError(fmt.Errorf("-o %q: want text or json", output))
			}
			if maxDiffs < 0 {
				return usageError(fmt.Errorf("--max-diffs %d: want 0 or more", maxDiffs))
			}
			if reportHTML != "" {
				var local []string
				for _, ref := range args {
					if in, err := source.Detect(ref); err == nil && in.Kind != source.KindGRPC {
						local = append(local, ref)
					}
				}
				if err := checkReportPath(reportHTML, force, local...); err != nil {
					return usageError(err)
				}
			}
			stderr := cmd.ErrOrStderr()
			prog := &parityProgress{w: stderr}
			opts := []parity.Option{parity.WithProgress(prog), parity.WithConcurrency(concurrency)}
			sides := [2]string{args[0], args[1]}
			for i, ref := range args {
				// An input Detect rejects is reported by Check.
				in, err := source.Detect(ref)
				if err != nil {
					continue
				}
				local, unpacked, err := imgFlags.localInput(cmd.Context(), in, false, stderr)
				if err != nil {
					return err
				}
				defer unpacked.Close()
				if err := refuseBundle(unpacked, "parity"); err != nil {
					return err
				}
				sides[i] = local.Ref
				if local.Kind == source.KindSQLite && !noWarning {
					warnDeprecated(stderr, ref)
				}
			}
			res, err := parity.Check(cmd.Context(), sides[0], sides[1], opts...)
			if err != nil {
				return err
			}
			stdout := cmd.OutOrStdout()
			if output == "json" {
				err = res.WriteJSON(stdout)
			} else {
				err = res.WriteText(stdout, maxDiffs, strict)
			}
			if err != nil {
				return fmt.Errorf("write result: %w", err)
			}
			if reportHTML != "" {
				if err := atomicfile.Write(reportHTML, force, func(w io.Writer) error { return htmlreport.WriteParity(w, res) }); err != nil {
					return err
				}
			}
			if !res.OK(strict) {
				what := fmt.Sprintf("%d of %d calls lost data", res.LossCalls, res.Calls)
				if res.LossCalls == 0 {
					what = fmt.Sprintf("%d of %d calls differ (benign, failing with --strict)", res.BenignCalls, res.Calls)
				}
				return &exitError{code: exitInvalid, err: errors.New("parity check failed: " + what)}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&output, "output", "o", "text", "output format: text (summary table and first differences) or json (the full result)")
	f.BoolVar(&strict, "strict", false, "fail on benign differences too")
	f.IntVar(&maxDiffs, "max-diffs", 10, "differences shown in text output")
	f.IntVar(&concurrency, "concurrency", parity.DefaultConcurrency, "calls made at once")
	f.StringVar(&reportHTML, "report-html", "", "also write the result as one self-contained HTML page (per-RPC table, differences grouped by rule) to `FILE`")
	f.BoolVar(&force, "force", false, "replace an existing --report-html file")
	f.BoolVar(&noWarning, "no-deprecation-warning", false, "do not print the sqlite deprecation warning (also "+noDeprecationWarningEnv+"=1)")
	imgFlags = addImageFlags(f, true)
	return cmd
}

// verifyParity is the migrate --verify hook: parity of the database with
// the written (not yet committed) output directory. A loss fails the
// migration, which then leaves no output behind.
func verifyParity(stderr io.Writer, dbPath string) func(ctx context.Context, dir string) error {
	return func(ctx context.Context, dir string) error {
		res, err := parity.Check(ctx, dbPath, dir, parity.WithProgress(&parityProgress{w: stderr, desc: "verifying parity"}))
		if err != nil {
			return fmt.Errorf("verify: %w", err)
		}
		if res.OK(false) {
			fmt.Fprintf(stderr, "verified: %d calls, no loss (%d with benign differences)\n", res.Calls, res.BenignCalls)
			return nil
		}
		if err := res.WriteText(stderr, 10, false); err != nil {
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
