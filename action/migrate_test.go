package action_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/migrate"
)

// TestMigrate: a sqlite index migrated gives the catalog opm migrate
// gives, its report naming the input, Prepare told the database before
// anything is migrated; an existing output is replaced only with Force
// (refused before reading); a missing input fails.
func TestMigrate(t *testing.T) {
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "catalog")
	for _, tc := range []struct {
		name, input string
		force       bool
		wantErr     bool
		wantReport  bool
	}{
		{name: "index", input: smallIndex, wantReport: true},
		{name: "existing output", input: smallIndex, wantErr: true},
		{name: "forced", input: smallIndex, force: true, wantReport: true},
		{name: "missing", input: filepath.Join(t.TempDir(), "nosuch.db"), wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var prepared []string
			res, err := action.Migrate{Input: tc.input, Output: out, Force: tc.force,
				Prepare: func(_ context.Context, name, dbPath string) (action.MigrateFunc, []migrate.Option, error) {
					prepared = append(prepared, name, dbPath)
					return nil, nil, nil
				}}.Run(ctx)
			if tc.wantErr {
				require.Error(t, err)
			} else {
				require.NoError(t, err)
				assert.Equal(t, files(t, smallCatalog), files(t, out))
			}
			if tc.wantReport {
				require.NotNil(t, res.Report)
				assert.Equal(t, tc.input, res.Report.Input)
				assert.Equal(t, []string{tc.input, tc.input}, prepared)
			}
		})
	}
}
