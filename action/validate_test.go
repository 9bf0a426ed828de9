package action_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/declcfg/model"
)

// checks counts what a ValidateReport received.
type checks struct {
	image    bool
	packages []string
}

func (c *checks) Warning(model.Problem)                   {}
func (c *checks) Package(pc model.PackageCheck)           { c.packages = append(c.packages, pc.Name) }
func (c *checks) report(image bool) action.ValidateReport { c.image = image; return c }

// TestValidate: a valid catalog's counts and packages as checked, an
// invalid one's problems as a result, and the inputs that cannot be
// checked as errors: a sqlite index, a missing path.
func TestValidate(t *testing.T) {
	bad := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bad, "x.json"), []byte(`{"schema":"olm.channel","name":"c","package":"nosuch"}`), 0o644))
	for _, tc := range []struct {
		name     string
		catalog  string
		packages []string
		invalid  bool
		wantErr  string
	}{
		{name: "valid", catalog: smallCatalog, packages: []string{"bar", "baz", "foo"}},
		{name: "invalid", catalog: bad, invalid: true},
		{name: "sqlite", catalog: smallIndex, wantErr: smallIndex + " is a legacy sqlite index, not a declarative config"},
		{name: "missing", catalog: filepath.Join(bad, "nosuch"), wantErr: filepath.Join(bad, "nosuch") + " does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c checks
			res, err := action.Validate{Catalog: tc.catalog, Report: c.report}.Run(context.Background())
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.False(t, c.image)
			if tc.invalid {
				var ve *model.ValidationError
				require.ErrorAs(t, res.Invalid, &ve)
				assert.NotEmpty(t, ve.Problems)
				return
			}
			require.NoError(t, res.Invalid)
			assert.ElementsMatch(t, tc.packages, c.packages)
			assert.Equal(t, len(tc.packages), res.Packages)
		})
	}
}
