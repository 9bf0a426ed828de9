package main

import (
	"context"
	"database/sql"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"
)

// otherSQLiteDB writes a sqlite database of another program (the tables of
// a SoftHSM token store) and returns its path.
func otherSQLiteDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sqlite3.db")
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec(`CREATE TABLE Token (id INTEGER PRIMARY KEY); CREATE TABLE Object (id INTEGER PRIMARY KEY, token_id INTEGER)`)
	require.NoError(t, err)
	return path
}

// TestDeprecationWarningOnlyForLegacyIndexes: migrate never prints the
// warning (it would tell the user to run migrate), and the other commands
// print it only for a file that is a legacy index; an empty file or
// another program's sqlite database gets a clear error instead.
func TestDeprecationWarningOnlyForLegacyIndexes(t *testing.T) {
	t.Setenv(noDeprecationWarningEnv, "")
	db := filepath.Join(legacyFixtures, "small-fbb", "index.db")
	empty := filepath.Join(t.TempDir(), "index.db")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	other := otherSQLiteDB(t)

	_, stderr, code := runCLI(t, "migrate", db, filepath.Join(t.TempDir(), "out"))
	require.Equal(t, exitOK, code, stderr)
	assert.NotContains(t, stderr, "WARNING")
	assert.NotContains(t, stderr, "legacy sqlite index")

	_, stderr, code = runCLI(t, "render", db)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "WARNING: "+db+" is a legacy sqlite index")

	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"migrate an empty file", []string{"migrate", empty, filepath.Join(t.TempDir(), "out")}, "not a sqlite database file"},
		{"migrate another sqlite database", []string{"migrate", other, filepath.Join(t.TempDir(), "out")}, "not a legacy index database"},
		{"render another sqlite database", []string{"render", other}, "not a legacy index database"},
		{"serve another sqlite database", []string{"serve", "-p", "0", other}, "not a legacy index database"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var stdout, stderr strings.Builder
			code := run(ctx, tc.args, &stdout, &stderr)
			assert.Equal(t, exitInvalid, code, stderr.String())
			assert.NotContains(t, stderr.String(), "legacy sqlite index")
			assert.Contains(t, stderr.String(), tc.msg)
		})
	}
}

// TestRenderEmptyFile: an empty blob file renders nothing, which must not
// pass for success.
func TestRenderEmptyFile(t *testing.T) {
	dir := t.TempDir()
	for _, content := range []string{"", "\n  \n"} {
		f := filepath.Join(dir, "catalog.json")
		require.NoError(t, os.WriteFile(f, []byte(content), 0o644))
		stdout, stderr, code := runCLI(t, "render", f)
		assert.Equal(t, exitInvalid, code, stderr)
		assert.Empty(t, stdout)
		assert.Contains(t, stderr, "holds no blob")
	}
}

// TestUsageErrors: every usage error exits 2, including unknown commands
// and a --concurrency that cannot work.
func TestUsageErrors(t *testing.T) {
	db := filepath.Join(legacyFixtures, "small-fbb", "index.db")
	for _, args := range [][]string{
		{"bogus"},
		{"bundle", "bogus"},
		{"validate", "--bogus", "x"},
		{"parity", "--concurrency", "0", db, db},
		{"parity", "--concurrency", "-3", db, db},
		{"version", "extra"},
		{"parity", db, "grpc://127.0.0.1:1"},
		{"parity", "--left-kind", "oracle", db, db},
	} {
		_, stderr, code := runCLI(t, args...)
		assert.Equal(t, exitUsage, code, "%v: %s", args, stderr)
	}
	_, stderr, _ := runCLI(t, "bogus")
	assert.Contains(t, stderr, `unknown command "bogus"`)
}

// TestVersion: olmcat version and olmcat --version name the module version
// and the commit; the -X values of make build win over the build info.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		stdout, stderr, code := runCLI(t, args...)
		require.Equal(t, exitOK, code, stderr)
		assert.Regexp(t, regexp.MustCompile(`^olmcat \S+, commit \S+`), stdout)
	}
	version, commit = "v1.2.3", "0123456789abcdef"
	defer func() { version, commit = "", "" }()
	stdout, _, _ := runCLI(t, "version")
	assert.Equal(t, "olmcat v1.2.3, commit 0123456789abcdef\n", stdout)
}

// TestMessagesSayThingsOnce: no doubled "stat X: stat X:" prefix, and a
// refused existing output is not reported as a failed migration.
func TestMessagesSayThingsOnce(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.db")
	_, stderr, code := runCLI(t, "migrate", missing, filepath.Join(t.TempDir(), "out"))
	assert.Equal(t, exitInvalid, code)
	assert.Equal(t, 1, strings.Count(stderr, "stat "+missing), stderr)

	db := filepath.Join(legacyFixtures, "small-fbb", "index.db")
	out := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(out, "keep"), nil, 0o644))
	_, stderr, code = runCLI(t, "migrate", db, out)
	assert.Equal(t, exitUsage, code, "an existing output is a usage error, like an existing report file")
	assert.Contains(t, stderr, "--force")
	assert.NotContains(t, stderr, "failed")
	assert.NotContains(t, stderr, "0 problems")
}

// TestServeLogCountsBundles: the load log line counts bundles, not
// channel memberships (small-fbb has 10 bundles in 14 channel entries).
func TestServeLogCountsBundles(t *testing.T) {
	s := startServe(t, filepath.Join(legacyFixtures, "small-fbb", "opm-migrate"))
	require.NoError(t, s.stop(t))
	assert.Contains(t, s.stderr.String(), "bundles=10 ")
}

// TestServeBusyPortFailsBeforeLoading: the port is bound before the
// catalog is loaded, so a busy port fails at once.
func TestServeBusyPortFailsBeforeLoading(t *testing.T) {
	busy, err := net.Listen("tcp", ":0")
	require.NoError(t, err)
	defer busy.Close()
	port := strconv.Itoa(busy.Addr().(*net.TCPAddr).Port)
	for _, catalog := range []string{
		filepath.Join(legacyFixtures, "small-fbb", "opm-migrate"),
		filepath.Join(legacyFixtures, "small-fbb", "index.db"),
	} {
		_, stderr, code := runCLI(t, "serve", "-p", port, "--no-deprecation-warning", catalog)
		assert.Equal(t, exitInvalid, code, stderr)
		assert.Contains(t, stderr, "listen on port "+port)
		assert.NotContains(t, stderr, "catalog loaded")
		assert.NotContains(t, stderr, "opened sqlite catalog")
	}
}
