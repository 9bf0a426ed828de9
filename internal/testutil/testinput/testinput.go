// Package testinput holds what tests and benchmarks of several packages
// share to get at their inputs: the large catalogs benchmarks read from a
// path named by an environment variable, and raw SQL on test databases.
// Only tests import it.
package testinput

import (
	"database/sql"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite" // the driver ExecSQL opens
)

// Path is the path the environment variable env names, else def. When
// nothing is there the test or benchmark is skipped, saying hint (how to
// make the input).
func Path(tb testing.TB, env, def, hint string) string {
	tb.Helper()
	path := os.Getenv(env)
	if path == "" {
		path = def
	}
	if _, err := os.Stat(path); err != nil {
		tb.Skipf("no input at %s (%s, or set %s)", path, hint, env)
	}
	return path
}

// ExecSQL runs statements on the sqlite database file at path, read and
// write: test set-up for damage no database builder produces.
func ExecSQL(tb testing.TB, path string, stmts ...string) {
	tb.Helper()
	db, err := sql.Open("sqlite", path)
	require.NoError(tb, err)
	defer db.Close()
	for _, s := range stmts {
		_, err := db.Exec(s)
		require.NoError(tb, err, s)
	}
}
