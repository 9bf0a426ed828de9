//go:build !slim

package main

import (
	"bufio"
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/registry/parity"
)

func newParityCmd(img *imageFlags) *cobra.Command {
	f := &parityFlags{}
	cmd := &cobra.Command{
		Use:   "parity <left> <right>",
		Short: "Check that two catalogs serve the same answers, over the registry gRPC API or catalogd's HTTP API",
		Long: `Compare what two catalogs serve, answer by answer. A side is a sqlite
index, a declarative config directory, a catalog image, a live server
grpc://host:port (its backend named by --left-kind/--right-kind: sqlite or
declcfg) or OLM v1's catalogd: http(s)://host/catalogs/<name>.

Over gRPC, every api.Registry RPC about every package, channel, bundle,
replaced or skipped name and provided or required GVK of either side is made
on both (local sides answered in process by olmcat serve's server;
--loopback: over 127.0.0.1), plus not-found probes, and the upgrade graph of
every channel is compared directly. With a catalogd side, blobs are compared
as OLM v1 reads them, then the order of /api/v1/all; the other side is read as
catalogd would serve its files (a legacy index: its migration), or with
--via-grpc as its gRPC server answers (OLM v0's view; a grpc:// side always).
Answers are compared as data (unordered lists as sets), package by package.

Each difference is a loss, or benign and named by its rule (see "Rules seen"):
the known differences between the sqlite and declarative config servers, what
the gRPC API cannot carry. Exit: 0 parity, 1 a loss (--strict: any), 2 usage.`,
		Example: `  olmcat parity index.db ./catalog
  olmcat parity index.db grpc://localhost:50051 --right-kind declcfg -o json > parity.json
  olmcat parity ./old-catalog ./new-catalog --strict
  olmcat parity index.db ./catalog -o junit > parity-junit.xml
  olmcat parity ./catalog https://catalogd-service.olmv1-system.svc/catalogs/my-catalog
  olmcat parity index.db http://localhost:8080/catalogs/index --via-grpc`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error { return runParity(cmd, args, f) },
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.output, "output", "o", "text", "output format: text (summary table and first differences), json (the full result), junit (JUnit XML: a test suite per package, a test case per RPC) or github (GitHub Actions error annotations on the catalog's files and lines); all but text are written as the check runs")
	fl.BoolVar(&f.strict, "strict", false, "fail on benign differences too")
	fl.IntVar(&f.maxDiffs, "max-diffs", 10, "differences shown in text output (losses first); with -o json, only when given: differences written (in the order found)")
	fl.IntVar(&f.concurrency, "concurrency", parity.DefaultConcurrency, "calls made at once")
	fl.BoolVar(&f.viaGRPC, "via-grpc", false, "with a catalogd side: read the local side through its registry gRPC server, as OLM v0 does, instead of as catalogd would serve its files")
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
	viaGRPC     bool
}

// runParity checks the two sides and prints the result: -o json, junit
// and github are written to stdout while the check runs, the text output
// and the --report-html page once it is done.
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
	stdout := bufio.NewWriterSize(cmd.OutOrStdout(), 1<<16)
	defer stdout.Flush()
	out := &parityOutput{flags: f, stdout: stdout, maxDiffsSet: cmd.Flags().Changed("max-diffs")}
	p := f.action(cmd, args, out)
	if err := p.Check(); err != nil {
		return actionError(err, "parity")
	}
	page, err := f.openPage(args)
	if err != nil {
		return usageError(err)
	}
	defer page.Discard()
	res, err := p.Run(cmd.Context())
	if err != nil {
		err = actionError(err, "parity")
		out.abort(args, err)
		return err
	}
	return out.finish(res.Result, page)
}

// action is the check the flags ask for, its reports made by out.
func (f *parityFlags) action(cmd *cobra.Command, args []string, out *parityOutput) action.Parity {
	p := action.Parity{Env: actionEnv(cmd, f.imgFlags, nil), Left: args[0], Right: args[1],
		LeftKind: input.Kind(f.kinds[0]), RightKind: input.Kind(f.kinds[1]), Concurrency: f.concurrency,
		MaxDiffs: f.maxDiffs, Loopback: f.loopback, ViaGRPC: f.viaGRPC, Locate: f.output == "github", Reports: out.reports}
	if f.output != "text" {
		// The streamed reports get every difference; the result keeps none.
		p.MaxDiffs = 0
	}
	if !f.noWarning {
		imgArgs := imageFlagArgs(cmd.Flags())
		p.OnSQLite = func(ctx context.Context, ref, path string) {
			warnDeprecated(ctx, cmd.ErrOrStderr(), ref, path, imgArgs)
		}
	}
	return p
}
