package action_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/declcfg/v1check"
	"github.com/operator-catalog/olmcat/internal/testutil/catalogdtest"
	"github.com/operator-catalog/olmcat/registry/catalogdhttp"
)

// v1Totals counts a check's packages by status and its blockers by rule.
type v1Totals struct {
	Installable, Blocked, Unknown int
	ByRule                        map[v1check.Rule]int
}

func totalsOf(t *testing.T, res action.V1CheckResult) v1Totals {
	t.Helper()
	tot := v1Totals{ByRule: map[v1check.Rule]int{}}
	for _, r := range res.Reports {
		switch r.Status() {
		case v1check.StatusInstallable:
			tot.Installable++
		case v1check.StatusBlocked:
			tot.Blocked++
		default:
			tot.Unknown++
		}
		for _, rule := range r.Blockers() {
			tot.ByRule[rule]++
		}
	}
	return tot
}

// TestV1CheckFixtures: the real legacy databases, converted package by
// package; the totals are recorded (README, MIGRATION.md).
func TestV1CheckFixtures(t *testing.T) {
	dep, modes := v1check.RuleDependency, v1check.RuleInstallMode
	for _, tc := range []struct {
		fixture string
		want    v1Totals
	}{
		{"community-bundles", v1Totals{Installable: 11, Blocked: 3, ByRule: map[v1check.Rule]int{dep: 1, modes: 2}}},
		{"edge-before-substitutes", v1Totals{Blocked: 2, ByRule: map[v1check.Rule]int{dep: 2, modes: 2}}},
		{"edge-substitutes", v1Totals{Blocked: 2, ByRule: map[v1check.Rule]int{dep: 2, modes: 2}}},
		{"infrawatch-catalog", v1Totals{Blocked: 2, ByRule: map[v1check.Rule]int{dep: 1, modes: 2}}},
		{"observability-operator", v1Totals{Blocked: 1, ByRule: map[v1check.Rule]int{modes: 1}}},
		{"opm-manifests", v1Totals{Installable: 1, Blocked: 2, ByRule: map[v1check.Rule]int{dep: 1, modes: 2}}},
		{"opreg-foo-index", v1Totals{Blocked: 1, ByRule: map[v1check.Rule]int{dep: 1, modes: 1}}},
		{"opreg-indexer-bundles", v1Totals{Installable: 1, Blocked: 2, ByRule: map[v1check.Rule]int{dep: 1, modes: 2}}},
		{"small-fbb", v1Totals{Blocked: 3, ByRule: map[v1check.Rule]int{dep: 1, modes: 3}}},
		{"small-fbb-deprecated", v1Totals{Blocked: 3, ByRule: map[v1check.Rule]int{dep: 1, modes: 3}}},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			res, err := action.V1Check{Catalogs: []string{filepath.Join("../fixtures/legacy", tc.fixture, "index.db")}}.Run(context.Background())
			require.NoError(t, err)
			assert.Empty(t, res.Unloadable)
			assert.Equal(t, tc.want, totalsOf(t, res))
		})
	}
}

// TestV1CheckDirMatchesIndex: opm's migration of an index answers as the
// index does.
func TestV1CheckDirMatchesIndex(t *testing.T) {
	fromDB, err := action.V1Check{Catalogs: []string{smallIndex}}.Run(context.Background())
	require.NoError(t, err)
	fromDir, err := action.V1Check{Catalogs: []string{smallCatalog}}.Run(context.Background())
	require.NoError(t, err)
	require.Len(t, fromDir.Reports, len(fromDB.Reports))
	for i, r := range fromDB.Reports {
		assert.Equal(t, r.Package, fromDir.Reports[i].Package)
		assert.Equal(t, r.V1Pick.Bundle, fromDir.Reports[i].V1Pick.Bundle)
		assert.Equal(t, r.Blockers(), fromDir.Reports[i].Blockers(), r.Package)
	}
}

// TestV1CheckCatalogs: several catalogs are ClusterCatalogs of equal
// priority (a package in two blocks both); a catalog catalogd cannot
// parse blocks every package.
func TestV1CheckCatalogs(t *testing.T) {
	a, b := "../declcfg/v1check/testdata/duplicate-a", "../declcfg/v1check/testdata/duplicate-b"
	res, err := action.V1Check{Catalogs: []string{a, b, smallCatalog}}.Run(context.Background())
	require.NoError(t, err)
	require.Len(t, res.Reports, 5)
	assert.Equal(t, "bar", res.Reports[0].Package)
	assert.Equal(t, []string{"dup", "dup"}, []string{res.Reports[2].Package, res.Reports[3].Package})
	assert.Equal(t, a, res.Reports[2].Catalog)
	assert.Equal(t, []v1check.Rule{v1check.RuleDuplicatePackage}, res.Reports[2].Blockers())

	bad := filepath.Join(t.TempDir(), "bad")
	require.NoError(t, os.Mkdir(bad, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bad, "catalog.json"), []byte(`{"schema":"olm.package","name":7}`), 0o644))
	res, err = action.V1Check{Catalogs: []string{a, bad}}.Run(context.Background())
	require.NoError(t, err)
	require.Len(t, res.Unloadable, 1)
	assert.Equal(t, bad, res.Unloadable[0].Catalog)
	require.Len(t, res.Reports, 1)
	assert.Equal(t, []v1check.Rule{v1check.RuleUnparsable}, res.Reports[0].Blockers())
	assert.Contains(t, res.Reports[0].Findings[0].Message, "catalog "+bad+" does not load: ")

	_, err = action.V1Check{Catalogs: []string{filepath.Join(bad, "nope")}}.Run(context.Background())
	assert.Error(t, err)
}

// TestV1CheckPullBundles: a picked bundle whose CSV the catalog does not
// carry is read from its image; a pull that fails is told with the
// unknowns.
func TestV1CheckPullBundles(t *testing.T) {
	env, refs := imageEnv(t, "../fixtures/bundles/opm-bundles/prometheus.0.15.0")
	dir := filepath.Join(t.TempDir(), "catalog")
	require.NoError(t, os.Mkdir(dir, 0o755))
	blobs := `{"schema":"olm.package","name":"prometheus","defaultChannel":"stable"}
{"schema":"olm.channel","package":"prometheus","name":"stable","entries":[{"name":"prometheusoperator.0.15.0"}]}
{"schema":"olm.bundle","package":"prometheus","name":"prometheusoperator.0.15.0","image":"` + refs[0] + `","properties":[{"type":"olm.package","value":{"packageName":"prometheus","version":"0.15.0"}}]}
{"schema":"olm.package","name":"gone","defaultChannel":"stable"}
{"schema":"olm.channel","package":"gone","name":"stable","entries":[{"name":"gone.v1"}]}
{"schema":"olm.bundle","package":"gone","name":"gone.v1","image":"` + refs[0] + `-missing","properties":[{"type":"olm.package","value":{"packageName":"gone","version":"1.0.0"}}]}
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "catalog.json"), []byte(blobs), 0o644))

	res, err := action.V1Check{Env: env, Catalogs: []string{dir}}.Run(context.Background())
	require.NoError(t, err)
	require.Len(t, res.Reports, 2)
	assert.Equal(t, v1check.StatusUnknown, res.Reports[1].Status())

	res, err = action.V1Check{Env: env, Catalogs: []string{dir}, PullBundles: true}.Run(context.Background())
	require.NoError(t, err)
	require.Len(t, res.Reports, 2)
	gone, prom := res.Reports[0], res.Reports[1]
	assert.Equal(t, []v1check.Rule{v1check.RuleInstallMode}, prom.Blockers())
	assert.Equal(t, v1check.StatusUnknown, gone.Status())
	assert.Contains(t, gone.Findings[0].Detail, "fetching the bundle image failed: ")
}

// TestMigrateV1Check: a migration asked for it reports what OLM v1 does
// with each converted package, as V1Check of the index does.
func TestMigrateV1Check(t *testing.T) {
	res, err := action.Migrate{Input: smallIndex, Output: filepath.Join(t.TempDir(), "out"), V1Check: true}.Run(context.Background())
	require.NoError(t, err)
	want, err := action.V1Check{Catalogs: []string{smallIndex}}.Run(context.Background())
	require.NoError(t, err)
	require.Len(t, res.Report.V1Check, len(want.Reports))
	for i, r := range res.Report.V1Check {
		assert.Equal(t, want.Reports[i].Package, r.Package)
		assert.Equal(t, want.Reports[i].V1Pick, r.V1Pick)
		assert.Equal(t, want.Reports[i].Findings, r.Findings)
	}

	res, err = action.Migrate{Input: smallIndex, Output: filepath.Join(t.TempDir(), "out")}.Run(context.Background())
	require.NoError(t, err)
	assert.Nil(t, res.Report.V1Check)
}

// TestV1CheckCatalogd: a catalogd server's catalog is checked as it
// serves it, the same as its files.
func TestV1CheckCatalogd(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir()) // where the fetched catalogs go
	url := catalogdtest.Serve(t, "small", catalogdhttp.DirSource(smallCatalog))
	fromURL, err := action.V1Check{Catalogs: []string{url}}.Run(context.Background())
	require.NoError(t, err)
	fromDir, err := action.V1Check{Catalogs: []string{smallCatalog}}.Run(context.Background())
	require.NoError(t, err)
	assert.Empty(t, fromURL.Unloadable)
	require.Len(t, fromURL.Reports, len(fromDir.Reports))
	for i, r := range fromURL.Reports {
		assert.Equal(t, url, r.Catalog)
		assert.Equal(t, fromDir.Reports[i].Package, r.Package)
		assert.Equal(t, fromDir.Reports[i].V1Pick, r.V1Pick)
		assert.Equal(t, fromDir.Reports[i].Blockers(), r.Blockers(), r.Package)
	}

	_, err = action.V1Check{Catalogs: []string{url + "-missing"}}.Run(context.Background())
	require.ErrorContains(t, err, "404 Not Found")
	matches, err := filepath.Glob(filepath.Join(os.TempDir(), "olmcat-v1check-*"))
	require.NoError(t, err)
	assert.Empty(t, matches, "the fetched catalogs are removed")
}
