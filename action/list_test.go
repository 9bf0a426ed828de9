package action_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/declcfg/model"
	"github.com/operator-catalog/olmcat/migrate"
)

// TestList: a catalog directory and the sqlite index it was migrated
// from list the same packages (the index told to Legacy); a bundle is
// no index.
func TestList(t *testing.T) {
	for _, tc := range []struct {
		name, index string
		legacy      bool
		wantErr     string
	}{
		{name: "catalog", index: smallCatalog},
		{name: "sqlite", index: smallIndex, legacy: true},
		{name: "bundle", index: filepath.Join(bundles, "small-fbb/foo-bundle-v0.1.0"),
			wantErr: `cannot list non-index "` + filepath.Join(bundles, "small-fbb/foo-bundle-v0.1.0") + `"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var converted []string
			legacy := action.Legacy{Converted: func(ref string, _ *migrate.Report, err error) {
				require.NoError(t, err)
				converted = append(converted, ref)
			}}
			res, err := action.List{Legacy: legacy, Index: tc.index}.Run(context.Background())
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			var names []string
			for _, p := range model.ListPackages(res.Model) {
				names = append(names, p.Name)
			}
			assert.Equal(t, []string{"bar", "baz", "foo"}, names)
			if tc.legacy {
				assert.Equal(t, []string{tc.index}, converted)
			} else {
				assert.Empty(t, converted)
			}
		})
	}
}
