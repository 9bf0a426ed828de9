// Command olmcat reads, migrates, validates and serves operator-framework
// catalogs: legacy sqlite indexes and declarative configs.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/operator-catalog/olmcat/internal/outdir"
	"github.com/operator-catalog/olmcat/internal/pathcheck"
	"github.com/operator-catalog/olmcat/internal/runtimetune"
)

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		if s, ok := (<-sigs).(syscall.Signal); ok {
			cancel(interrupted{s})
		}
	}()
	code := dispatch(ctx, os.Args, os.Stdout, os.Stderr)
	signal.Stop(sigs)
	os.Exit(code)
}

// interrupted is the cause of the cancellation when a signal stops olmcat.
type interrupted struct{ sig syscall.Signal }

func (i interrupted) Error() string { return "interrupted by " + i.sig.String() }

// The names olmcat answers to besides its own: every image olmcat builds
// links them to its one binary, so that what OLM execs in a catalog pod
// (grpc_health_probe) and in its opm image (/bin/opm) is olmcat.
const (
	probeName = "grpc_health_probe"
	opmName   = "opm"
)

// dispatch runs the program argv[0] names: grpc-health-probe's command
// line as grpc_health_probe, the command tree as opm (help and errors
// then say opm) or as anything else olmcat.
func dispatch(ctx context.Context, argv []string, stdout, stderr io.Writer) int {
	if len(argv) == 0 {
		return run(ctx, nil, stdout, stderr)
	}
	switch filepath.Base(argv[0]) {
	case probeName:
		return runHealthProbe(ctx, argv[1:], stdout, stderr)
	case opmName:
		return runAs(ctx, opmName, argv[1:], stdout, stderr)
	}
	return run(ctx, argv[1:], stdout, stderr)
}

// run executes the command tree with args and returns the process exit
// code: 0, exitInvalid, or the code an exitError carries. Tests call it in
// process exactly as main does.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runAs(ctx, "olmcat", args, stdout, stderr)
}

// runAs is run with the root command named name.
func runAs(ctx context.Context, name string, args []string, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.Use = name
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	// The one spot where the runtime is tuned: the budgets the command's
	// phases enter apply through this Tuner and are undone when it ends.
	var tuner runtimetune.Tuner
	defer tuner.Restore()
	cmd, err := root.ExecuteContextC(runtimetune.NewContext(ctx, &tuner))
	if err == nil {
		return exitOK
	}
	var sig interrupted
	if errors.As(context.Cause(ctx), &sig) && ctx.Err() != nil {
		// Stopped on request: what was being written was discarded (or
		// is finished by the next run); "context canceled" says nothing.
		fmt.Fprintln(stderr, sig.Error())
		return 128 + int(sig.sig)
	}
	code := exitCode(err)
	fmt.Fprintln(stderr, "Error:", failedWriterText(cmd, err, code, errorText(err)))
	return code
}

// exitCode is the exit code for the error of a command.
func exitCode(err error) int {
	if errors.Is(err, pathcheck.ErrOverlap) || errors.Is(err, pathcheck.ErrExists) || errors.Is(err, outdir.ErrNotDir) {
		// Paths that overlap, outputs that exist without --force and
		// output paths that are no directory are usage errors whichever
		// layer found them.
		return exitUsage
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitInvalid
}
