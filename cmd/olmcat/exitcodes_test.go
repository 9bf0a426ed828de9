package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUsageErrorsExit2: every usage error exits 2: a command group
// without its subcommand, a negative duration, an existing output
// directory and an existing report file alike.
func TestUsageErrorsExit2(t *testing.T) {
	_, stderr, code := runCLI(t, "bundle")
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, stderr, "olmcat bundle needs a subcommand")
	assert.Contains(t, stderr, "Available Commands", "the help goes to stderr")

	_, stderr, code = runCLI(t, "bundle", "unpack", "example.com/b:v1", "-n", "ns", "--timeout", "-5s")
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, stderr, "--timeout -5s: must not be negative")

	db := filepath.Join(legacyFixtures, "small-fbb", "index.db")
	out := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(out, "keep"), nil, 0o644))
	_, stderr, code = runCLI(t, "migrate", "--no-deprecation-warning", db, out)
	assert.Equal(t, exitUsage, code, stderr)
	report := filepath.Join(t.TempDir(), "report.json")
	require.NoError(t, os.WriteFile(report, nil, 0o644))
	_, stderr, code = runCLI(t, "migrate", "--no-deprecation-warning", "--report", report, db, filepath.Join(t.TempDir(), "new"))
	assert.Equal(t, exitUsage, code, stderr)
	_, stderr, code = runCLI(t, "convert", "../../fixtures/legacy/small-fbb/opm-migrate", out)
	assert.Equal(t, exitUsage, code, stderr)
}

// TestInterruptExits130: Ctrl-C (SIGINT) stops a migration with the
// shell's code for it, 130, saying it was interrupted rather than
// "context canceled", and leaves no temporary directory.
func TestInterruptExits130(t *testing.T) {
	bin := buildBinary(t)
	cmd, stderr, outParent, _ := startLargeMigration(t, bin)
	waitForTempDir(t, outParent)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	_ = cmd.Wait()
	assert.Equal(t, 130, cmd.ProcessState.ExitCode(), stderr.String())
	assert.NotContains(t, stderr.String(), "context canceled")
	assert.True(t, strings.HasSuffix(stderr.String(), "interrupted by interrupt\n"), stderr.String())
	ents, err := os.ReadDir(outParent)
	require.NoError(t, err)
	assert.Empty(t, ents, "nothing written, nothing left")
}

// TestValidateSaysWhatTheInputIs: validate of a sqlite index points at
// migrate, and of a missing path says it does not exist, instead of
// "invalid catalog: 1 problem(s)" after a stat or "not a directory" error.
func TestValidateSaysWhatTheInputIs(t *testing.T) {
	db := filepath.Join(legacyFixtures, "small-fbb", "index.db")
	_, stderr, code := runCLI(t, "validate", db)
	assert.Equal(t, exitInvalid, code)
	assert.Equal(t, "Error: "+db+" is a legacy sqlite index, not a declarative config; olmcat migrate "+db+" <dir> converts it (then validate <dir>)\n", stderr)
	missing := filepath.Join(t.TempDir(), "nonexist")
	_, stderr, code = runCLI(t, "validate", missing)
	assert.Equal(t, exitInvalid, code)
	assert.Equal(t, "Error: "+missing+" does not exist\n", stderr)
}
