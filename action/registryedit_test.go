package action_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/action"
)

// TestRegistryEdit: each edit on each target (a catalog directory
// rewritten in place, a sqlite index read into an output directory, a
// new catalog directory), and the refusals, which write nothing.
func TestRegistryEdit(t *testing.T) {
	for _, tc := range []struct {
		name string
		// setup returns the Database and Output (relative to tmp).
		setup    func(t *testing.T, tmp string) (db, out string)
		edit     action.Edit
		target   action.Target
		packages []string // of the catalog written
		line     string   // one line of the log
		kind     action.Kind
		option   string // of the error
		err      error  // that the error is
	}{
		{name: "remove in place", setup: inPlace, edit: action.RemovePackages{Packages: []string{"bar"}},
			target: action.TargetInPlace, packages: []string{"baz", "foo"}, line: "removed package bar (2 channels, 3 bundles)"},
		{name: "keep, from sqlite to an output", setup: fromSQLite, edit: action.KeepPackages{Packages: []string{"foo", "nosuch"}},
			target: action.TargetOutput, packages: []string{"foo"}, line: "note: package nosuch is not in the catalog: nothing to keep"},
		{name: "add to a new catalog", edit: action.AddBundles{Bundles: []string{filepath.Join(bundles, "small-fbb/foo-bundle-v0.1.0")}},
			setup:  func(_ *testing.T, tmp string) (string, string) { return filepath.Join(tmp, "new"), "" },
			target: action.TargetNew, packages: []string{"foo"}, line: "created package foo (default channel beta)"},
		{name: "prune stranded in place", setup: inPlace, edit: action.PruneStranded{},
			target: action.TargetInPlace, packages: []string{"bar", "baz", "foo"}},
		{name: "a sqlite index is never written", setup: func(*testing.T, string) (string, string) { return smallIndex, "" },
			edit: action.PruneStranded{}, kind: action.KindUsage, option: "RegistryEdit.Output", err: action.ErrSQLiteTarget},
		{name: "no parent for a new catalog", setup: func(_ *testing.T, tmp string) (string, string) { return filepath.Join(tmp, "no/such"), "" },
			edit: action.PruneStranded{}, kind: action.KindFailed, option: "RegistryEdit.Database", err: os.ErrNotExist},
		{name: "a rewrite in place would lose a file", edit: action.PruneStranded{}, kind: action.KindUsage, option: "RegistryEdit.Output",
			setup: func(t *testing.T, tmp string) (string, string) {
				db, _ := inPlace(t, tmp)
				require.NoError(t, os.WriteFile(filepath.Join(db, "foo", "README.md"), []byte("notes"), 0o644))
				return db, ""
			}},
		{name: "an invalid mode", setup: inPlace, edit: action.AddBundles{Mode: "sideways"}, kind: action.KindUsage, option: "AddBundles.Mode"},
		{name: "a missing package", setup: inPlace, edit: action.RemovePackages{Packages: []string{"nosuch"}}, kind: action.KindFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			db, out := tc.setup(t, tmp)
			var before []string
			if st, err := os.Stat(db); err == nil && st.IsDir() {
				before = packagesIn(t, db)
			}
			var rec recorder
			res, err := action.RegistryEdit{Env: rec.env(), Database: db, Output: out, Edit: tc.edit}.Run(context.Background())
			if tc.packages == nil {
				requireActionError(t, err, tc.kind, tc.option)
				if tc.err != nil {
					require.ErrorIs(t, err, tc.err)
				}
				if before != nil {
					require.Equal(t, before, packagesIn(t, db), "a refused edit writes nothing")
				}
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.target, res.Target)
			written := db
			if out != "" {
				written = out
			}
			require.Equal(t, tc.packages, packagesIn(t, written))
			if tc.line != "" {
				require.Contains(t, rec.lines, tc.line)
			}
		})
	}
}

// inPlace is a copy of the small catalog, edited in place.
func inPlace(t *testing.T, _ string) (string, string) {
	t.Helper()
	return copyCatalog(t, smallCatalog), ""
}

// fromSQLite reads the small index into an output directory.
func fromSQLite(_ *testing.T, tmp string) (string, string) {
	return smallIndex, filepath.Join(tmp, "out")
}

// TestRegistryEditLock: the output's lock is taken before the catalog is
// read, for the directory written (no inputs for a rewrite in place),
// and released when the edit ends.
func TestRegistryEditLock(t *testing.T) {
	db := copyCatalog(t, smallCatalog)
	var locked []string
	released := false
	env := action.Env{Lock: func(_ context.Context, out string, inputs ...string) (func(), error) {
		locked = append(append(locked, out), inputs...)
		return func() { released = true }, nil
	}}
	_, err := action.RegistryEdit{Env: env, Database: db, Edit: action.PruneStranded{}}.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{db}, locked)
	require.True(t, released)

	out := filepath.Join(t.TempDir(), "out")
	locked = nil
	_, err = action.RegistryEdit{Env: env, Database: db, Output: out, Edit: action.PruneStranded{}}.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{out, db}, locked, "an output directory is locked with the catalog read as its input")
}
