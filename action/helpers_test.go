package action_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/declcfg"
)

// The fixtures the tests read: a catalog directory of three packages
// (bar, baz, foo), the sqlite index it was migrated from, and bundle
// directories.
const (
	smallCatalog = "../fixtures/legacy/small-fbb/opm-migrate"
	smallIndex   = "../fixtures/legacy/small-fbb/index.db"
	bundles      = "../fixtures/bundles"
)

// copyCatalog copies catalog directory src into a new temporary
// directory and returns the copy's path.
func copyCatalog(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "catalog")
	require.NoError(t, os.CopyFS(dst, os.DirFS(src)))
	return dst
}

// recorder is an Env whose lines are kept.
type recorder struct{ lines []string }

func (r *recorder) env() action.Env {
	return action.Env{Log: func(line string) { r.lines = append(r.lines, line) }}
}

// packagesIn are the package names of catalog directory dir, sorted.
func packagesIn(t *testing.T, dir string) []string {
	t.Helper()
	cfg, err := declcfg.LoadDir(context.Background(), dir)
	require.NoError(t, err)
	var out []string
	for _, p := range cfg.Packages {
		out = append(out, p.Name)
	}
	slices.Sort(out)
	return out
}

// requireActionError checks err's kind and the option it names.
func requireActionError(t *testing.T, err error, kind action.Kind, option string) {
	t.Helper()
	require.Error(t, err)
	require.Equal(t, kind, action.KindOf(err), "kind of %v", err)
	var ae *action.Error
	if option == "" {
		if errors.As(err, &ae) {
			require.Empty(t, ae.Option, "option of %v", err)
		}
		return
	}
	require.ErrorAs(t, err, &ae)
	require.Equal(t, option, ae.Option)
}
