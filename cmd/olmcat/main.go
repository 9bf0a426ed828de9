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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

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
	fmt.Fprintln(stderr, "Error:", err)
	if errors.Is(err, pathcheck.ErrOverlap) {
		// Paths that overlap are a usage error whichever layer found them.
		return exitUsage
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitInvalid
}
