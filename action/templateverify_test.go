package action_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/registry/parity"
)

// TestVerifyTemplates checks templates against the small-fbb index: bad
// image options fail before anything is migrated, a missing directory
// fails, and templates that render another catalog (one package, bundle
// directories without images) differ, the result handed to Differ.
func TestVerifyTemplates(t *testing.T) {
	bar, err := filepath.Abs(filepath.Join(bundles, "small-fbb/bar-bundle-v0.1.0"))
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bar.json"), []byte(`{"schema": "olm.template.basic", "entries": [
		{"schema": "olm.package", "name": "bar", "defaultChannel": "alpha"},
		{"schema": "olm.channel", "package": "bar", "name": "alpha", "entries": [{"name": "bar.v0.1.0"}]},
		{"schema": "olm.bundle", "image": "`+bar+`"}]}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("not a template"), 0o644))
	errOptions := errors.New("bad image options")
	for _, tc := range []struct {
		name     string
		v        action.VerifyTemplates
		err      error
		errorHas string
		differs  bool
	}{
		{name: "image options", v: action.VerifyTemplates{Dir: dir,
			Env: action.Env{ImageOptions: func() ([]image.Option, error) { return nil, errOptions }}}, err: errOptions},
		{name: "no templates", v: action.VerifyTemplates{Dir: filepath.Join(dir, "missing")}, errorHas: "verify: "},
		{name: "differ", v: action.VerifyTemplates{Dir: dir}, differs: true,
			errorHas: "verify: the rendered templates differ from the migrated catalog: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var differed *parity.Result
			tc.v.Database, tc.v.MaxDiffs = smallIndex, 10
			tc.v.Differ = func(res *parity.Result) error { differed = res; return nil }
			res, err := tc.v.Run(context.Background())
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
			}
			require.ErrorContains(t, err, tc.errorHas)
			require.Empty(t, res.Note)
			require.Equal(t, tc.differs, differed != nil)
		})
	}
}
