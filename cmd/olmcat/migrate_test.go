package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/catalogtest"
	"github.com/operator-catalog/olmcat/internal/testutil/dbbuild"
)

const legacyFixtures = "../../fixtures/legacy"

func TestMigrateCommand(t *testing.T) {
	t.Setenv(noDeprecationWarningEnv, "")
	db := filepath.Join(legacyFixtures, "small-fbb-deprecated", "index.db")
	dir := t.TempDir()
	out := filepath.Join(dir, "catalog")
	report := filepath.Join(dir, "report.json")

	_, stderr, code := runCLI(t, "migrate", db, out, "--report", report)
	require.Equal(t, exitOK, code, stderr)
	assert.NotContains(t, stderr, "WARNING", "migrate prints no deprecation warning")
	assert.Contains(t, stderr, "migrated "+db+" (schema level 13) to "+out+": 3 packages, 4 channels, 8 bundles, 8 objects; 4 repairs, 1 drops, 1 notes")
	assert.Contains(t, stderr, "drop deprecated-bundle: package foo, bundle foo.v0.2.0")
	assert.Contains(t, stderr, "hint (deprecated-bundle): pass --keep-deprecated")
	for _, pkg := range []string{"bar", "baz", "foo"} {
		assert.FileExists(t, filepath.Join(out, pkg, "catalog.json"))
	}
	var rep map[string]any
	data, err := os.ReadFile(report)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &rep))
	assert.Equal(t, float64(8), rep["counts"].(map[string]any)["bundles"])

	// Existing output: refused without --force (exit 2), replaced with it.
	_, stderr, code = runCLI(t, "migrate", "--no-deprecation-warning", db, out, "--keep-deprecated")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--force")
	assert.NotContains(t, stderr, "WARNING")
	_, stderr, code = runCLI(t, "migrate", "--no-deprecation-warning", db, out, "--keep-deprecated", "--force", "-o", "yaml")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "9 bundles")
	assert.FileExists(t, filepath.Join(out, "foo", "catalog.yaml"))
}

func TestMigrateCommandErrors(t *testing.T) {
	db := filepath.Join(legacyFixtures, "small-fbb", "index.db")
	out := filepath.Join(t.TempDir(), "catalog")
	notDB := filepath.Join(t.TempDir(), "index.db")
	require.NoError(t, os.WriteFile(notDB, []byte("not a database"), 0o644))
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"one argument", []string{"migrate", db}, exitUsage, "accepts 2 arg(s)"},
		{"unknown flag", []string{"migrate", db, out, "--nope"}, exitUsage, "unknown flag"},
		{"bad format", []string{"migrate", db, out, "-o", "xml"}, exitUsage, "xml"},
		{"bad layout", []string{"migrate", db, out, "--layout", "flat"}, exitUsage, "flat"},
		{"bad migrate level", []string{"migrate", db, out, "--migrate-level", "everything"}, exitUsage, "everything"},
		{"not a database", []string{"migrate", notDB, out}, exitInvalid, notDB},
		{"missing database", []string{"migrate", notDB + ".missing", out}, exitInvalid, "missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, append(tt.args, "--no-deprecation-warning")...)
			assert.Equal(t, tt.code, code, stderr)
			assert.Contains(t, stderr, tt.msg)
			_, err := os.Stat(out)
			assert.True(t, os.IsNotExist(err), "no output on error")
		})
	}
}

func TestRenderSQLite(t *testing.T) {
	db := filepath.Join(legacyFixtures, "small-fbb", "index.db")
	stdout, stderr, code := runCLI(t, "render", db, "--no-deprecation-warning")
	require.Equal(t, exitOK, code, stderr)
	var want bytes.Buffer
	for _, pkg := range []string{"bar", "baz", "foo"} {
		data, err := os.ReadFile(filepath.Join(legacyFixtures, "small-fbb", "opm-migrate", pkg, "catalog.json"))
		require.NoError(t, err)
		want.Write(data)
	}
	assert.Equal(t, want.String(), stdout, "small-fbb renders byte for byte as opm rendered it")
	assert.NotContains(t, stderr, "WARNING")
	assert.Contains(t, stderr, "5 repairs")

	// Mixed with a declarative config directory: loaded, merged, rendered.
	other := filepath.Join(legacyFixtures, "opreg-foo-index", "opm-migrate")
	stdout, stderr, code = runCLI(t, "render", filepath.Join(legacyFixtures, "observability-operator", "index.db"), other, "--no-deprecation-warning")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, `"name": "observability-operator"`)
	assert.Contains(t, stdout, `"name": "foo.v0.2.0"`)
	assert.Contains(t, stderr, "2 drops")
}

// TestMigrateInterrupted runs the built binary on a generated database,
// sends SIGINT while it writes and checks that neither the output nor a
// temporary directory is left behind.
func TestMigrateInterrupted(t *testing.T) {
	bin := buildBinary(t)
	cmd, stderr, outParent, _ := startLargeMigration(t, bin)
	// Interrupt as soon as the temporary directory has files in it.
	waitForTempDir(t, outParent)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err := cmd.Wait()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "the interrupted migration must fail; stderr: %s", stderr.String())
	assert.Equal(t, 130, ee.ExitCode(), "an interrupt exits 128+SIGINT")
	assert.Contains(t, stderr.String(), "interrupted by interrupt")
	assert.NotContains(t, stderr.String(), "context canceled")
	ents, err := os.ReadDir(outParent)
	require.NoError(t, err)
	assert.Empty(t, ents, "no output and no temporary directory may remain")
}

// manyBundles makes n bundles of the benchmark legacy index from the real
// etcd 0.9.2 bundle (packages of catalogtest.DefaultBundlesPerPackage
// bundles).
func manyBundles(t *testing.T, n int) []dbbuild.Bundle {
	t.Helper()
	return catalogtest.MustGenerate(t, catalogtest.WithBundles(n),
		catalogtest.LegacyBenchIndex("../../fixtures/bundles/opm-bundles/etcd.0.9.2")).DBBundles()
}
