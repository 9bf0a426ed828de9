package migrate

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/testinput"

	"github.com/operator-catalog/olmcat/internal/testutil/dbbuild"
)

// TestUnreadableColumns: every unreadable csv or bundle column value is an
// invalid-csv / invalid-manifest problem naming table, row and column,
// whichever bundle it is on; --drop-invalid-bundles drops the bundle; and
// the package description and icon, taken from the default channel head's
// CSV, are reported when they cannot be derived.
func TestUnreadableColumns(t *testing.T) {
	for _, tc := range []struct {
		name, bundle, column string
		kind                 Kind
		droppable            bool
	}{
		{"csv of the default channel head", "foo.v0.3.1", "csv", ProblemInvalidCSV, false},
		{"csv of another bundle", "bar.v0.1.0", "csv", ProblemInvalidCSV, true},
		{"bundle column", "bar.v0.1.0", "bundle", ProblemInvalidManifest, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "index.db")
			require.NoError(t, dbbuild.Build(context.Background(), db, dbbuild.MaxLevel, smallFBBBundles(t)))
			testinput.ExecSQL(t, db, `UPDATE operatorbundle SET `+tc.column+` = 'not json {' WHERE name = '`+tc.bundle+`'`)

			rep, err := Migrate(context.Background(), db, filepath.Join(t.TempDir(), "out"))
			var pe *ProblemsError
			require.True(t, errors.As(err, &pe), "want a problem, got %v", err)
			var found bool
			for _, p := range rep.Problems {
				if p.Kind == tc.kind && p.Bundle == tc.bundle {
					found = true
					assert.Contains(t, p.Detail, "operatorbundle")
					assert.Contains(t, p.Detail, tc.column+" column")
				}
			}
			assert.True(t, found, "%v", rep.Problems)
			if tc.bundle == "foo.v0.3.1" {
				assert.True(t, hasFinding(rep.Drops, DropPackageMeta, "foo"), "description/icon loss reported: %v", rep.Drops)
			}
			if !tc.droppable {
				return
			}
			rep, err = Migrate(context.Background(), db, filepath.Join(t.TempDir(), "out"), WithDropInvalidBundles(true))
			require.NoError(t, err)
			var dropped bool
			for _, d := range rep.Drops {
				dropped = dropped || (d.Kind == DropInvalidBundle && d.Bundle == tc.bundle && strings.Contains(d.Detail, tc.column+" column"))
			}
			assert.True(t, dropped, "%v", rep.Drops)
		})
	}
}

func hasFinding(fs []Finding, kind Kind, pkg string) bool {
	for _, f := range fs {
		if f.Kind == kind && f.Package == pkg {
			return true
		}
	}
	return false
}
