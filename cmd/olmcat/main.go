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
	"syscall"

	"github.com/operator-catalog/olmcat/internal/pathcheck"
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
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	signal.Stop(sigs)
	os.Exit(code)
}

// interrupted is the cause of the cancellation when a signal stops olmcat.
type interrupted struct{ sig syscall.Signal }

func (i interrupted) Error() string { return "interrupted by " + i.sig.String() }

// run executes the command tree with args and returns the process exit
// code: 0, exitInvalid, or the code an exitError carries. Tests call it in
// process exactly as main does.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
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
	fmt.Fprintln(stderr, "Error:", errorText(err))
	if errors.Is(err, pathcheck.ErrOverlap) || errors.Is(err, pathcheck.ErrExists) {
		// Paths that overlap and outputs that exist without --force are
		// usage errors whichever layer found them.
		return exitUsage
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitInvalid
}
