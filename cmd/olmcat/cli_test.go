package main

import (
	"bytes"
	"context"
	"testing"
)

// runCLI runs the olmcat command tree in process through run, as main
// does, and returns stdout, stderr and the exit code.
func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}
