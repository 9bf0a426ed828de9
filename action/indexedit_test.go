package action_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/migrate"
)

// TestIndexEditGenerate: the result is written as a catalog directory
// and a Dockerfile serving it; an existing Dockerfile is refused before
// anything is written, unless Force.
func TestIndexEditGenerate(t *testing.T) {
	for _, tc := range []struct {
		name       string
		from       string
		edit       action.Edit
		dockerfile bool // exists before
		force      bool
		packages   []string
		option     string // of the usage error
	}{
		{name: "from a catalog directory", from: smallCatalog, edit: action.RemovePackages{Packages: []string{"baz"}}, packages: []string{"bar", "foo"}},
		{name: "from a sqlite index", from: smallIndex, edit: action.KeepPackages{Packages: []string{"bar"}}, packages: []string{"bar"}},
		{name: "a new catalog", edit: action.AddBundles{Bundles: []string{filepath.Join(bundles, "small-fbb/baz-bundle-v1.0.0")}}, packages: []string{"baz"}},
		{name: "the Dockerfile exists", from: smallCatalog, edit: action.PruneStranded{}, dockerfile: true, option: "Generate.Force"},
		{name: "the Dockerfile is replaced", from: smallCatalog, edit: action.PruneStranded{}, dockerfile: true, force: true, packages: []string{"bar", "baz", "foo"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			g := &action.Generate{Dir: filepath.Join(tmp, "database"), Dockerfile: filepath.Join(tmp, "index.Dockerfile"),
				BaseImage: "registry.example.com/operator-framework/opm:v1.73.0", Force: tc.force}
			if tc.dockerfile {
				require.NoError(t, os.WriteFile(g.Dockerfile, []byte("FROM scratch\n"), 0o644))
			}
			_, err := action.IndexEdit{From: tc.from, Edit: tc.edit, Generate: g}.Run(context.Background())
			if tc.option != "" {
				requireActionError(t, err, action.KindUsage, tc.option)
				require.NoDirExists(t, g.Dir)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.packages, packagesIn(t, g.Dir))
			df, err := os.ReadFile(g.Dockerfile)
			require.NoError(t, err)
			require.Contains(t, string(df), "FROM "+g.BaseImage)
		})
	}
}

// TestIndexEditBuild: Build gets the result in a temporary directory,
// removed once it returns, and its error is the edit's; a bad mode is
// refused before the catalog is read.
func TestIndexEditBuild(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	var built string
	var packages []string
	build := func(_ context.Context, dir string) error {
		built, packages = dir, packagesIn(t, dir)
		return errors.New("push refused")
	}
	_, err := action.IndexEdit{From: smallIndex, Edit: action.RemovePackages{Packages: []string{"foo"}}, Build: build}.Run(context.Background())
	require.EqualError(t, err, "push refused")
	require.Equal(t, []string{"bar", "baz"}, packages)
	require.NoDirExists(t, built, "the temporary catalog is removed")

	e := action.IndexEdit{From: "no/such/index", Edit: action.AddBundles{Mode: "sideways"}, Build: build}
	requireActionError(t, e.Check(), action.KindUsage, "AddBundles.Mode")
	_, err = e.Run(context.Background())
	requireActionError(t, err, action.KindUsage, "AddBundles.Mode")
}

// TestIndexEditTellsConversion: the conversion of a sqlite index is told
// to Legacy once, repairs included (an index edit used to drop them
// silently); a prune reads only the packages it keeps.
func TestIndexEditTellsConversion(t *testing.T) {
	for _, tc := range []struct {
		name     string
		edit     action.Edit
		packages int // read and converted
	}{
		{name: "prune-stranded reads every package", edit: action.PruneStranded{}, packages: 3},
		{name: "prune reads the packages kept", edit: action.KeepPackages{Packages: []string{"bar"}}, packages: 1},
		{name: "deprecatetruncate reads twice, tells once", edit: action.DeprecateTruncate{Images: []string{"127.0.0.1:5000/test/bar-bundle:v0.2.0"}}, packages: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			var reports []*migrate.Report
			var deprecated []string
			legacy := action.Legacy{
				Deprecated: func(_ context.Context, ref, _ string) { deprecated = append(deprecated, ref) },
				Converted: func(ref string, rep *migrate.Report, err error) {
					require.Equal(t, smallIndex, ref)
					require.NoError(t, err)
					reports = append(reports, rep)
				},
			}
			g := &action.Generate{Dir: filepath.Join(tmp, "database"), Dockerfile: filepath.Join(tmp, "index.Dockerfile"), BaseImage: "opm:v1"}
			_, err := action.IndexEdit{Legacy: legacy, From: smallIndex, Edit: tc.edit, Generate: g}.Run(context.Background())
			require.NoError(t, err)
			require.Equal(t, []string{smallIndex}, deprecated)
			require.Len(t, reports, 1)
			require.Equal(t, tc.packages, reports[0].Counts.Packages)
			require.NotEmpty(t, reports[0].Repairs, "small-fbb's index needs repairs")
		})
	}
}
