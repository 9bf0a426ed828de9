package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUnknownCommandSuggestions: a typo within two edits of a command
// gets a suggestion at every level of the tree, not only a prefix.
func TestUnknownCommandSuggestions(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"servee"}, "did you mean serve?"},
		{[]string{"valdate", "x"}, "did you mean validate?"},
		{[]string{"bundle", "unpak"}, "did you mean unpack?"},
		{[]string{"alpha", "lst"}, "did you mean list?"},
		{[]string{"alpha", "bundle", "genrate"}, "did you mean generate?"},
		{[]string{"index", "ad"}, "did you mean add or rm?"},
	} {
		t.Run(tc.args[len(tc.args)-1], func(t *testing.T) {
			_, stderr, code := runCLI(t, tc.args...)
			assert.Equal(t, exitUsage, code, stderr)
			assert.Contains(t, stderr, tc.want)
		})
	}
}

// TestWrongArgumentCountPrintsUsage: a wrong number of arguments says
// which arguments the command takes, not only how many it got.
func TestWrongArgumentCountPrintsUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"parity"}, "accepts 2 arg(s), received 0\nUsage: olmcat parity "},
		{[]string{"migrate", "x"}, "accepts 2 arg(s), received 1\nUsage: olmcat migrate "},
		{[]string{"render"}, "Usage: olmcat render "},
		{[]string{"unpack"}, "Usage: olmcat unpack "},
		{[]string{"alpha", "list", "packages"}, "Usage: olmcat alpha list packages "},
		{[]string{"alpha", "render-template", "a", "b", "c"}, "Usage: olmcat alpha render-template "},
		{[]string{"index", "add", "x"}, "Usage: olmcat index add "},
	} {
		t.Run(tc.args[len(tc.args)-1], func(t *testing.T) {
			_, stderr, code := runCLI(t, tc.args...)
			assert.Equal(t, exitUsage, code, stderr)
			assert.Contains(t, stderr, tc.want)
		})
	}
}

// TestExistingOutputRefusalsExit2: an output that exists without
// --force is a usage error (exit 2) for every writer, as a missing
// flag is.
func TestExistingOutputRefusalsExit2(t *testing.T) {
	from, err := filepath.Abs(filepath.Join(legacyFixtures, "small-fbb", "opm-migrate"))
	require.NoError(t, err)
	bundle, err := filepath.Abs("../../fixtures/bundles/small-fbb/foo-bundle-v0.1.0")
	require.NoError(t, err)
	work := t.TempDir()
	t.Chdir(work)
	t.Setenv(noDeprecationWarningEnv, "1")
	require.NoError(t, os.WriteFile("index.Dockerfile", nil, 0o644))
	_, stderr, code := runCLI(t, "index", "add", "-f", from, "-b", bundle, "--generate", "-i", "o.example/opm:1")
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, stderr, "index.Dockerfile exists")

	require.NoError(t, os.Mkdir("catalog", 0o755))
	require.NoError(t, os.WriteFile("catalog.Dockerfile", nil, 0o644))
	_, stderr, code = runCLI(t, "generate", "dockerfile", "catalog", "-i", "o.example/opm:1")
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, stderr, "file already exists")
	assert.NotContains(t, stderr, "--force", "generate dockerfile has no --force")

	// Not an existing output but the same kind of mistake: a missing
	// required flag.
	_, stderr, code = runCLI(t, "alpha", "bundle", "generate", "-d", filepath.Join(bundle, "manifests"))
	assert.Equal(t, exitUsage, code, stderr)
}

// TestFullDiskNamesTheOutput: a writer whose output cannot be written
// (files capped at 1 KiB with RLIMIT_FSIZE: EFBIG, as a full disk gives
// ENOSPC) names the output, never the input, says "nothing was written"
// exactly once, and add tells no change it did not make.
func TestFullDiskNamesTheOutput(t *testing.T) {
	bin := buildBinary(t)
	t.Setenv(noDeprecationWarningEnv, "1")
	fbb := filepath.Join(legacyFixtures, "small-fbb")
	work := t.TempDir()
	cat := filepath.Join(work, "catalog")
	copyTree(t, filepath.Join(fbb, "opm-migrate", "bar"), filepath.Join(cat, "bar"))
	before := snapshotTree(t, cat)
	for _, tc := range []struct {
		name   string
		args   []string
		output string
	}{
		{"registry add", []string{"registry", "add", "-d", filepath.Join(fbb, "opm-migrate"), "-b", filepath.Join(fixtureBundles, "small-fbb", "foo-bundle-v0.3.1"), "--output", filepath.Join(work, "ra")}, filepath.Join(work, ".ra.tmp-")},
		{"add", []string{"add", cat, filepath.Join(fixtureBundles, "small-fbb", "foo-bundle-v0.1.0")}, cat},
		{"migrate", []string{"migrate", filepath.Join(fbb, "index.db"), filepath.Join(work, "mn")}, filepath.Join(work, ".mn.tmp-")},
		{"convert", []string{"convert", filepath.Join(fbb, "opm-migrate"), filepath.Join(work, "cv")}, filepath.Join(work, ".cv.tmp-")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stderr, code := runBinary(t, "/bin/sh", append([]string{"-c", `ulimit -f 2; exec "$0" "$@"`, bin}, tc.args...)...)
			assert.Equal(t, exitInvalid, code, stderr)
			assert.Contains(t, stderr, "file too large")
			assert.Contains(t, stderr, tc.output, "the error names the output")
			assert.NotContains(t, stderr, "read "+fbb, "the error blames the input")
			assert.Equal(t, 1, strings.Count(stderr, "nothing was written"), stderr)
			for _, l := range strings.Split(stderr, "\n") {
				if strings.HasPrefix(l, "Error: ") {
					rest := strings.TrimPrefix(l, "Error: ")
					for _, part := range strings.SplitAfter(rest, ": ") {
						assert.Equal(t, 1, strings.Count(rest, part), "%q repeated in %q", part, l)
					}
				}
			}
			assert.NotContains(t, stderr, "added bundle", "a change that was not made")
			assert.NotContains(t, stderr, "created package", "a change that was not made")
		})
	}
	assert.Equal(t, before, snapshotTree(t, cat))
}

// TestErrorContextOnce: each layer adds its context once: a sqlite file
// that is no legacy index is named once, not as "open X: open sqlite
// catalog X: open X", and a missing bundle once, not as "bundle X: stat
// X: ...".
func TestErrorContextOnce(t *testing.T) {
	db := filepath.Join(t.TempDir(), "empty.db")
	sdb, err := sql.Open("sqlite", db)
	require.NoError(t, err)
	_, err = sdb.Exec("CREATE TABLE x (a TEXT)")
	require.NoError(t, err)
	require.NoError(t, sdb.Close())
	for _, args := range [][]string{
		{"parity", "--no-deprecation-warning", db, filepath.Join(legacyFixtures, "small-fbb", "opm-migrate")},
		{"parity", "--no-deprecation-warning", filepath.Join(legacyFixtures, "small-fbb", "opm-migrate"), db},
		{"add", filepath.Join(legacyFixtures, "small-fbb", "opm-migrate"), db + ".missing"},
	} {
		_, stderr, code := runCLI(t, args...)
		assert.Equal(t, exitInvalid, code, stderr)
		assert.Equal(t, 1, strings.Count(stderr, db), stderr)
	}
}

// TestDockerfileDestinationCheckedFirst: index add --generate refuses a
// Dockerfile destination that is a fifo (or a device) before it writes
// the catalog directory, as a usage error; the fifo stays a fifo.
func TestDockerfileDestinationCheckedFirst(t *testing.T) {
	from, err := filepath.Abs(filepath.Join(legacyFixtures, "small-fbb", "opm-migrate"))
	require.NoError(t, err)
	bundle, err := filepath.Abs("../../fixtures/bundles/small-fbb/foo-bundle-v0.1.0")
	require.NoError(t, err)
	t.Chdir(t.TempDir())
	require.NoError(t, syscall.Mkfifo("df", 0o644))
	_, stderr, code := runCLI(t, "index", "add", "-f", from, "-b", bundle, "--generate", "-d", "df", "--force", "-i", "o.example/opm:1", "--no-deprecation-warning")
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, stderr, "df is a fifo")
	assert.NoDirExists(t, "database", "refused before any work")
	fi, err := os.Lstat("df")
	require.NoError(t, err)
	assert.Equal(t, os.ModeNamedPipe, fi.Mode().Type())
}
