package indexop

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
)

// substitutes is b with the olm.substitutesFor annotation naming target
// (and, when name is not "", that name).
func substitutes(t testing.TB, b NewBundle, target, name string) NewBundle {
	t.Helper()
	var csv map[string]any
	require.NoError(t, json.Unmarshal([]byte(b.Bundle.CsvJSON), &csv))
	meta := csv["metadata"].(map[string]any)
	meta["annotations"] = map[string]any{annotationSubstitutesFor: target}
	if name != "" {
		meta["name"], b.Bundle.Name, b.Bundle.Image = name, name, "img/"+name
	}
	data, err := json.Marshal(csv)
	require.NoError(t, err)
	b.Bundle.CsvJSON = string(data)
	return b
}

// base is the package p: channel a 1.0.0 <- 1.1.0 <- 1.2.0, channel b
// 1.0.0 <- 1.1.0.
func base(t testing.TB) *declcfg.DeclarativeConfig {
	t.Helper()
	pkg, _, err := Add("p", nil, []NewBundle{testBundle("1.0.0", "", nil, "a,b", "a"), testBundle("1.1.0", "p.v1.0.0", nil, "a,b", "a"), testBundle("1.2.0", "p.v1.1.0", nil, "a", "a")})
	require.NoError(t, err)
	return pkg
}

// TestSubstitutesFor applies olm.substitutesFor with --enable-alpha in
// replaces mode, step by step on base: each row adds to the package the
// previous successful row made.
func TestSubstitutesFor(t *testing.T) {
	type step struct {
		add      []NewBundle
		channels map[string][]string
		err      string
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"the substitute takes over the edges, later ones the chain, competing ones by version", []step{
			{[]NewBundle{substitutes(t, testBundle("1.1.0+1", "p.v1.0.0", nil, "a,b", "a"), "p.v1.1.0", "")}, map[string][]string{
				"a": {"p.v1.2.0<p.v1.1.0+1", "p.v1.1.0+1<p.v1.0.0[p.v1.1.0]", "p.v1.1.0", "p.v1.0.0"},
				"b": {"p.v1.1.0+1<p.v1.0.0[p.v1.1.0]", "p.v1.1.0", "p.v1.0.0"}}, ""},
			// two more in one call, given newest first: ordered by version
			{[]NewBundle{substitutes(t, testBundle("1.1.0+3", "p.v1.0.0", []string{"p.v0.9.0"}, "a,b", "a"), "p.v1.1.0", ""), substitutes(t, testBundle("1.1.0+2", "p.v1.0.0", nil, "a,b", "a"), "p.v1.1.0+1", "")}, map[string][]string{
				"a": {"p.v1.2.0<p.v1.1.0+3", "p.v1.1.0+3<p.v1.0.0[p.v0.9.0 p.v1.1.0+2 p.v1.1.0+1 p.v1.1.0]", "p.v1.1.0+2", "p.v1.1.0+1", "p.v1.1.0", "p.v1.0.0"},
				"b": {"p.v1.1.0+3<p.v1.0.0[p.v0.9.0 p.v1.1.0+2 p.v1.1.0+1 p.v1.1.0]", "p.v1.1.0+2", "p.v1.1.0+1", "p.v1.1.0", "p.v1.0.0"}}, ""},
			// a later bundle naming a substituted bundle names the latest
			{[]NewBundle{testBundle("1.3.0", "p.v1.1.0+1", []string{"p.v1.1.0+2"}, "b", "a")}, map[string][]string{
				"a": {"p.v1.2.0<p.v1.1.0+3", "p.v1.1.0+3<p.v1.0.0[p.v0.9.0 p.v1.1.0+2 p.v1.1.0+1 p.v1.1.0]", "p.v1.1.0+2", "p.v1.1.0+1", "p.v1.1.0", "p.v1.0.0"},
				"b": {"p.v1.3.0<p.v1.1.0+3[p.v1.1.0+2]", "p.v1.1.0+2", "p.v1.1.0+3<p.v1.0.0[p.v0.9.0 p.v1.1.0+2 p.v1.1.0+1 p.v1.1.0]", "p.v1.1.0+1", "p.v1.1.0", "p.v1.0.0"}}, ""},
		}},
		{"a bundle skipping the substituted bundle skips its substitute too", []step{
			{[]NewBundle{substitutes(t, testBundle("1.2.0+1", "p.v1.1.0", nil, "a", "a"), "p.v1.2.0", ""), testBundle("1.3.0", "p.v1.2.0", []string{"p.v1.2.0"}, "a", "a"),
				substitutes(t, testBundle("1.1.0+1", "p.v1.0.0", nil, "b", "a"), "p.v1.1.0", ""), testBundle("1.1.5", "p.v1.0.0", []string{"p.v1.1.0"}, "b", "a")}, map[string][]string{
				"a": {"p.v1.3.0<p.v1.2.0+1[p.v1.2.0]", "p.v1.2.0", "p.v1.2.0+1<p.v1.1.0+1[p.v1.2.0]", "p.v1.1.0+1<p.v1.0.0[p.v1.1.0]", "p.v1.1.0", "p.v1.0.0"},
				"b": {"p.v1.1.5<p.v1.0.0[p.v1.1.0 p.v1.1.0+1]", "p.v1.1.0", "p.v1.1.0+1", "p.v1.0.0"}}, ""},
		}},
		{"errors name the bundle", []step{
			{[]NewBundle{substitutes(t, testBundle("1.1.0+1", "p.v1.0.0", nil, "a", ""), "p.v1.1.0+2", ""), substitutes(t, testBundle("1.1.0+2", "p.v1.0.0", nil, "a", ""), "p.v1.1.0+1", "")}, nil,
				`bundle p.v1.1.0+1: cyclic substitutesFor chain detected involving "p.v1.1.0+1"`},
			{[]NewBundle{substitutes(t, testBundle("1.1.0+1", "p.v1.0.0", nil, "a", ""), "p.v1.1.0+1", "")}, nil, `cyclic substitutesFor chain detected involving "p.v1.1.0+1"`},
			{[]NewBundle{substitutes(t, testBundle("1.1.0+1", "p.v1.0.0", nil, "a", ""), "p.v1.1.0", ""), substitutes(t, testBundle("1.1.0+1", "p.v1.0.0", nil, "a", ""), "p.v1.1.0", "p.v1.1.0-rebuild")}, nil,
				"cannot determine latest substitution because of duplicate versions: bundles p.v1.1.0+1 and p.v1.1.0-rebuild (version 1.1.0+1) both substitute for p.v1.1.0"},
			{[]NewBundle{substitutes(t, testBundle("1.0.5", "p.v1.0.0", nil, "a", ""), "p.v1.1.0", "")}, nil, "bundle p.v1.0.5 substitutes for p.v1.1.0 but its version 1.0.5 is not higher than 1.1.0"},
			{[]NewBundle{substitutes(t, testBundle("1.1.0+1", "p.v1.0.0", nil, "a,b", "a"), "p.v1.1.0", "")}, map[string][]string{
				"a": {"p.v1.2.0<p.v1.1.0+1", "p.v1.1.0+1<p.v1.0.0[p.v1.1.0]", "p.v1.1.0", "p.v1.0.0"},
				"b": {"p.v1.1.0+1<p.v1.0.0[p.v1.1.0]", "p.v1.1.0", "p.v1.0.0"}}, ""},
			// the bundle being added is named, though the existing one
			// comes second
			{[]NewBundle{substitutes(t, testBundle("1.1.0+1", "p.v1.0.0", nil, "a", ""), "p.v1.1.0", "p.v1.1.0+0rebuild")}, nil,
				"bundle p.v1.1.0+0rebuild: cannot determine latest substitution because of duplicate versions"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pkg := base(t)
			for i, s := range tc.steps {
				before, err := json.Marshal(pkg)
				require.NoError(t, err)
				got, _, err := Add("p", pkg, s.add, WithEnableAlpha(true))
				after, merr := json.Marshal(pkg)
				require.NoError(t, merr)
				require.JSONEq(t, string(before), string(after), "step %d: the input changed", i)
				if requireStep(t, i, got, err, s.err, s.channels) {
					pkg = got
				}
			}
		})
	}
}

// TestSubstitutesForNeedsAlpha: without --enable-alpha the bundle is
// refused with opm's text; in semver modes the annotation changes
// nothing, and a rebuild differing only by build metadata is refused as
// opm refused it.
func TestSubstitutesForNeedsAlpha(t *testing.T) {
	pkg := base(t)
	sub := substitutes(t, testBundle("1.2.0+1", "p.v1.1.0", nil, "a", ""), "p.v1.2.0", "")
	_, _, err := Add("p", pkg, []NewBundle{sub})
	require.EqualError(t, err, "bundle p.v1.2.0+1: SubstitutesFor is an alpha-only feature. You must enable alpha features with the flag --enable-alpha in order to use this feature.")
	_, _, err = Add("p", pkg, []NewBundle{sub}, WithEnableAlpha(true), WithMode(ModeSemver))
	require.ErrorContains(t, err, "Bundle version 1.2.0+1 already added to index")
	got, _, err := Add("p", pkg, []NewBundle{substitutes(t, testBundle("1.3.0", "p.v1.1.0", nil, "a", ""), "p.v1.2.0", "")}, WithEnableAlpha(true), WithMode(ModeSemver))
	require.NoError(t, err)
	require.Equal(t, []string{"p.v1.2.0<p.v1.1.0", "p.v1.1.0<p.v1.0.0", "p.v1.0.0", "p.v1.3.0<p.v1.2.0"}, entries(got)["a"])
}

// TestSubstituteLeavesExistingChains: a substitution among bundles
// already in the catalog is not re-applied to them (their graph may be
// hand-made); it only redirects the bundles being added.
func TestSubstituteLeavesExistingChains(t *testing.T) {
	x := &node{name: "x", skips: []string{"w"}, blob: &declcfg.Bundle{}}
	s := &node{name: "s", skips: []string{"x"}, blob: &declcfg.Bundle{}, substitutesFor: "x", isNew: true}
	s.version.Major = 1
	// s is new: the latest substitute inherits x's skips
	require.NoError(t, substitute([]*node{x, s}))
	require.Equal(t, []string{"x", "w"}, s.skips)

	s.isNew, s.skips = false, []string{"x"}
	s.blob.CsvJSON = `{"metadata":{"name":"s","annotations":{"olm.substitutesFor":"x"}}}`
	y := &node{name: "y", replaces: "x", skips: []string{"x"}, blob: &declcfg.Bundle{}, isNew: true}
	require.NoError(t, substitute([]*node{x, s, y}))
	require.Equal(t, []string{"x"}, s.skips, "an existing chain is left as it is")
	require.Equal(t, "s", y.replaces)
	require.Equal(t, []string{"x"}, y.skips, "y replaces s: it does not skip it")
}
