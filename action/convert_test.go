package action_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/pathcheck"
)

// TestConvert: opm -> objects -> opm gives the same bytes; a non-empty
// output is replaced only with Force, an output overlapping the input
// is refused, an invalid input writes nothing.
func TestConvert(t *testing.T) {
	ctx := context.Background()
	work := t.TempDir()
	objects, back := filepath.Join(work, "objects"), filepath.Join(work, "back")
	for _, tc := range []struct {
		name     string
		c        action.Convert
		wantFile string
		wantErr  error
	}{
		{"to objects", action.Convert{From: smallCatalog, To: objects, Layout: declcfg.LayoutObjects}, "bar/bar.json", nil},
		{"back to opm", action.Convert{From: objects, To: back, Layout: declcfg.LayoutOPM}, "bar/catalog.json", nil},
		{"existing output", action.Convert{From: smallCatalog, To: objects, Layout: declcfg.LayoutOPM}, "", pathcheck.ErrExists},
		{"forced", action.Convert{From: smallCatalog, To: objects, Layout: declcfg.LayoutOPM, Format: declcfg.FormatYAML, Force: true}, "bar/catalog.yaml", nil},
		{"output in input", action.Convert{From: objects, To: filepath.Join(objects, "sub")}, "", pathcheck.ErrOverlap},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.c.Run(ctx)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.FileExists(t, filepath.Join(tc.c.To, tc.wantFile))
		})
	}
	assert.Equal(t, files(t, smallCatalog), files(t, back), "opm -> objects -> opm is byte-identical")

	bad := filepath.Join(work, "bad")
	require.NoError(t, os.MkdirAll(bad, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bad, "x.json"), []byte(`{"name":"x"}`), 0o644))
	_, err := action.Convert{From: bad, To: filepath.Join(work, "y")}.Run(ctx)
	require.Error(t, err)
	assert.Equal(t, action.KindFailed, action.KindOf(err))
	assert.NoDirExists(t, filepath.Join(work, "y"))
}
