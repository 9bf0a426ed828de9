package model

import (
	"strings"
	"testing"

	"github.com/blang/semver/v4"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
)

// testModel builds a model from package -> channel -> bundles; every bundle
// is valid (image, one olm.package property, distinct version) unless a
// case breaks it.
func testModel(pkgs map[string]map[string][]string) *Model {
	m := &Model{Packages: map[string]*Package{}}
	n := 0
	for pname, chans := range pkgs {
		mp := &Package{Name: pname, Channels: map[string]*Channel{}}
		m.Packages[pname] = mp
		for cname, bundles := range chans {
			mc := &Channel{Package: mp, Name: cname, Bundles: map[string]*Bundle{}}
			mp.Channels[cname] = mc
			mp.DefaultChannel = mc
			prev := ""
			for _, bname := range bundles {
				n++
				v := semver.Version{Major: uint64(n)}
				mc.Bundles[bname] = &Bundle{Package: mp, Channel: mc, Name: bname, Image: "example.com/" + bname, Replaces: prev, Version: v,
					Properties: []declcfg.Property{declcfg.MustProperty(declcfg.PropertyPackage, declcfg.PackageValue{PackageName: pname, Version: v.String()})}}
				prev = bname
			}
		}
	}
	return m
}

// modelErrorPaths walks the nested errors and returns, for every
// *Error, its path ("olm.package foo > olm.channel stable > olm.bundle
// b1") with the messages of the findings directly under it.
func modelErrorPaths(err error, path string, out map[string][]string) {
	var children []error
	switch e := err.(type) {
	case *Error:
		path = strings.TrimPrefix(path+" > "+e.Schema+" "+map[bool]string{true: e.Package, false: e.Name}[e.Schema == declcfg.SchemaPackage], " > ")
		out[path] = nil
		children = e.Errs
	case *Problem:
		out[path] = append(out[path], e.Message)
		return
	case interface{ Unwrap() []error }:
		children = e.Unwrap()
	}
	for _, c := range children {
		modelErrorPaths(c, path, out)
	}
}

func TestModelValidateNested(t *testing.T) {
	tests := []struct {
		name  string
		model func() *Model
		want  map[string][]string // path -> findings directly under it
	}{{
		name: "valid",
		model: func() *Model {
			return testModel(map[string]map[string][]string{"foo": {"stable": {"foo.v1", "foo.v2"}}})
		},
	}, {
		name: "bundle error under its channel and package",
		model: func() *Model {
			m := testModel(map[string]map[string][]string{"foo": {"stable": {"foo.v1", "foo.v2"}}})
			m.Packages["foo"].Channels["stable"].Bundles["foo.v2"].Image = ""
			return m
		},
		want: map[string][]string{
			"olm.package foo":                                          nil,
			"olm.package foo > olm.channel stable":                     nil,
			"olm.package foo > olm.channel stable > olm.bundle foo.v2": {"bundle image must be set (or bundle objects present)"},
		},
	}, {
		name: "two packages with problems, both nested",
		model: func() *Model {
			m := testModel(map[string]map[string][]string{
				"bar": {"alpha": {"bar.v1"}},
				"foo": {"stable": {"foo.v1", "foo.v2"}},
				"ok":  {"stable": {"ok.v1"}},
			})
			m.Packages["bar"].Channels["alpha"].Bundles["bar.v1"].Properties = nil
			m.Packages["foo"].Channels["stable"].Bundles["foo.v1"].Replaces = "foo.v2" // a cycle
			m.Packages["foo"].DefaultChannel = nil
			return m
		},
		want: map[string][]string{
			"olm.package bar":                                         nil,
			"olm.package bar > olm.channel alpha":                     nil,
			"olm.package bar > olm.channel alpha > olm.bundle bar.v1": {"must have exactly one olm.package property, found 0"},
			"olm.package foo":                                         {"default channel must be set"},
			"olm.package foo > olm.channel stable":                    {"no channel head found in graph"},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.model().Validate()
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			got := map[string][]string{}
			modelErrorPaths(err, "", got)
			require.Equal(t, tt.want, trimGraphMessages(got))
			require.Equal(t, []Problem(flattenErrors(ve.Unwrap())), ve.Problems, "the flat report is the nested errors flattened")
		})
	}
}

// trimGraphMessages keeps the start of channel graph messages, whose tails
// list bundle names.
func trimGraphMessages(paths map[string][]string) map[string][]string {
	for k, msgs := range paths {
		for i, m := range msgs {
			if strings.HasPrefix(m, "no channel head found") {
				msgs[i] = "no channel head found in graph"
			}
		}
		paths[k] = msgs
	}
	return paths
}

// TestModelErrorAs checks that errors.As reaches a bundle's finding
// through its channel and package, and that each level's Validate returns
// its own subtree.
func TestModelErrorAs(t *testing.T) {
	m := testModel(map[string]map[string][]string{"foo": {"stable": {"foo.v1"}}})
	mp := m.Packages["foo"]
	mc := mp.Channels["stable"]
	mb := mc.Bundles["foo.v1"]
	mb.Image = ""

	err := m.Validate()
	var pe *Error
	require.ErrorAs(t, err, &pe, "the first *Error is the package's")
	require.Equal(t, declcfg.SchemaPackage, pe.Schema)
	require.Equal(t, "foo", pe.Package)
	var ce *Error
	require.ErrorAs(t, pe.Errs[0], &ce)
	require.Equal(t, declcfg.SchemaChannel, ce.Schema)
	require.Equal(t, "stable", ce.Name)
	var be *Error
	require.ErrorAs(t, ce.Errs[0], &be)
	require.Equal(t, declcfg.SchemaBundle, be.Schema)
	require.Equal(t, "foo.v1", be.Name)
	var p *Problem
	require.ErrorAs(t, err, &p, "the leaf finding is reachable from the model's error")
	require.Equal(t, "olm.bundle foo/foo.v1: bundle image must be set (or bundle objects present)", p.String())
	require.ErrorIs(t, err, p)

	require.Equal(t, pe, mp.Validate())
	require.Equal(t, ce, mc.Validate())
	require.Equal(t, be, mb.Validate())
	require.Equal(t, "olm.bundle foo/foo.v1: 1 problem:\n  olm.bundle foo/foo.v1: bundle image must be set (or bundle objects present)", be.Error())

	mb.Image = "example.com/foo.v1"
	require.NoError(t, mb.Validate())
	require.NoError(t, mc.Validate())
	require.NoError(t, mp.Validate())
	require.NoError(t, m.Validate())
}

// TestModelValidateFlatOrder checks the flat report's order across
// channels: a package's channel findings come before its bundles'
// findings, bundles by name, whichever channel a bundle is nested under.
func TestModelValidateFlatOrder(t *testing.T) {
	m := testModel(map[string]map[string][]string{"foo": {"a": {"foo.z"}, "b": {"foo.y"}}})
	mp := m.Packages["foo"]
	mp.Channels["a"].Bundles["foo.z"].Image = ""
	mp.Channels["b"].Bundles["foo.y"].Image = ""
	mp.Channels["b"].Bundles["foo.y"].Skips = []string{""}
	err := m.Validate()
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	require.Equal(t, []string{
		`olm.channel foo/b: entry "foo.y": skips contains an empty name`,
		"olm.bundle foo/foo.y: bundle image must be set (or bundle objects present)",
		"olm.bundle foo/foo.z: bundle image must be set (or bundle objects present)",
	}, problemTexts(ve.Problems))
	paths := map[string][]string{}
	modelErrorPaths(err, "", paths)
	require.Contains(t, paths, "olm.package foo > olm.channel a > olm.bundle foo.z")
	require.Contains(t, paths, "olm.package foo > olm.channel b > olm.bundle foo.y")
}

// TestConvertToModelNested checks that FromDeclcfg's error unwraps to
// the model-level nested errors its flat report includes.
func TestConvertToModelNested(t *testing.T) {
	blobs := []string{
		pkgBlob("foo", "stable"),
		chBlob("foo", "stable", entry("foo.v0.1.0"), entry("foo.v0.2.0")),
		bundleBlob("foo", "foo.v0.1.0", "0.1.0"),
		bundleBlob("foo", "foo.v0.2.0", "0.2.0"),
	}
	_, err := convertBlobs(t, blobs)
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	var me *Error
	require.ErrorAs(t, err, &me)
	paths := map[string][]string{}
	modelErrorPaths(me, "", paths)
	require.Equal(t, map[string][]string{
		"olm.package foo":                      nil,
		"olm.package foo > olm.channel stable": {"multiple channel heads found in graph: foo.v0.1.0, foo.v0.2.0"},
	}, paths)
	require.Equal(t, []string{"catalog.json#1: olm.channel foo/stable: multiple channel heads found in graph: foo.v0.1.0, foo.v0.2.0"},
		validateBlobs(t, blobs))
}

// problemTexts renders each problem as the CLI prints it.
func problemTexts(ps []Problem) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}
