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
			for _, p := range res.Packages {
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

// TestListStreamsPackages: the rows are those of the whole catalog's
// model, package by package, whatever the index kind; with Package, only
// that package's rows, and a sqlite index converts only that package.
func TestListStreamsPackages(t *testing.T) {
	cfg, err := declcfg.LoadDir(context.Background(), smallCatalog)
	require.NoError(t, err)
	require.NoError(t, cfg.ResolveBundleObjects())
	m, err := model.FromDeclcfg(cfg)
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "catalog.json")
	f, err := os.Create(file)
	require.NoError(t, err)
	require.NoError(t, declcfg.WriteStream(f, cfg, declcfg.FormatJSON))
	require.NoError(t, f.Close())
	for _, index := range []string{smallCatalog, smallIndex, file} {
		t.Run(filepath.Base(index), func(t *testing.T) {
			res, err := action.List{Index: index}.Run(context.Background())
			require.NoError(t, err)
			assert.Equal(t, model.ListPackages(m), res.Packages)
			assert.Equal(t, model.ListChannels(m, ""), res.Channels)
			assert.Equal(t, model.ListBundles(m, ""), res.Bundles)

			var converted *migrate.Report
			legacy := action.Legacy{Converted: func(_ string, rep *migrate.Report, _ error) { converted = rep }}
			res, err = action.List{Legacy: legacy, Index: index, Package: "baz"}.Run(context.Background())
			require.NoError(t, err)
			assert.Equal(t, model.ListChannels(m, "baz"), res.Channels)
			assert.Equal(t, model.ListBundles(m, "baz"), res.Bundles)
			require.Len(t, res.Packages, 1)
			if index == smallIndex {
				assert.Equal(t, 1, converted.Counts.Packages, "only baz is converted")
			}

			res, err = action.List{Index: index, Package: "nope"}.Run(context.Background())
			require.NoError(t, err)
			assert.Empty(t, res.Packages)
		})
	}
}
