package action_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/declcfg/template"
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

// TestToTemplate: a migration to templates writes one template per
// package; a verification that passes is noted in the report, one that
// fails leaves nothing behind.
func TestToTemplate(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		verify   func(ctx context.Context, dir string) (action.VerifyTemplatesResult, error)
		wantNote bool
		wantErr  string
	}{
		{name: "unverified"},
		{name: "verified", wantNote: true, verify: func(_ context.Context, dir string) (action.VerifyTemplatesResult, error) {
			assert.NotEmpty(t, files(t, dir), "the templates, before they are committed")
			return action.VerifyTemplatesResult{Note: "rendered back"}, nil
		}},
		{name: "verify fails", wantErr: "differ", verify: func(context.Context, string) (action.VerifyTemplatesResult, error) {
			return action.VerifyTemplatesResult{}, errors.New("differ")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "templates")
			res, err := action.Migrate{Input: smallIndex, Output: out,
				Prepare: func(context.Context, string, string) (action.MigrateFunc, []migrate.Option, error) {
					return action.ToTemplate(template.TypeBasic, tc.verify), nil, nil
				}}.Run(ctx)
			require.NotNil(t, res.Report)
			var notes []string
			for _, n := range res.Report.Notes {
				if n.Kind == migrate.NoteTemplatesVerified {
					notes = append(notes, n.Detail)
				}
			}
			if tc.wantErr != "" {
				assert.ErrorContains(t, err, tc.wantErr)
				assert.NoDirExists(t, out)
				return
			}
			require.NoError(t, err)
			assert.NotEmpty(t, files(t, out))
			if tc.wantNote {
				assert.Equal(t, []string{"rendered back"}, notes)
			} else {
				assert.Empty(t, notes)
			}
		})
	}
}
