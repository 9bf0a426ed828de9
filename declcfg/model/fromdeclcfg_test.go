package model

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blang/semver/v4"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/testutil/catalogtest"
)

// The blob builders shared with the other catalog tests.
var (
	pkgBlob    = catalogtest.PkgBlob
	chBlob     = catalogtest.ChBlob
	entry      = catalogtest.Entry
	bundleBlob = catalogtest.BundleBlob
	pkgProp    = catalogtest.PkgProp
	bundleWith = catalogtest.BundleWith
	validFoo   = catalogtest.ValidFoo()
)

// validateBlobs writes blobs as catalog.json in a temp dir, loads it and
// returns the problems FromDeclcfg reports (nil if valid).
func validateBlobs(t *testing.T, blobs []string) []string {
	t.Helper()
	m, err := convertBlobs(t, blobs)
	if err == nil {
		require.NotNil(t, m)
		return nil
	}
	var ve *ValidationError
	require.True(t, errors.As(err, &ve), "want *ValidationError, got %T: %v", err, err)
	require.Nil(t, m)
	out := make([]string, len(ve.Problems))
	for i, p := range ve.Problems {
		out[i] = p.String()
	}
	return out
}

// convertBlobs writes blobs as catalog.json in a temp dir, loads it and
// returns what FromDeclcfg returns.
func convertBlobs(t *testing.T, blobs []string) (*Model, error) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "catalog.json"), []byte(strings.Join(blobs, "\n")), 0o644))
	cfg, err := declcfg.LoadDir(context.Background(), dir)
	require.NoError(t, err)
	return FromDeclcfg(cfg)
}

func TestConvertToModelRules(t *testing.T) {
	const badImage = "example.com/strimzi/operator@@sha256:1e1c2c5f8f2a3f0a6d1b2b3a9f6c2e7d2f8c5a0e3b4d5c6f7a8b9c0d1e2f3a4b"
	tests := []struct {
		name  string
		blobs []string
		want  []string
	}{
		{"valid", validFoo, nil},
		{"tail may replace a missing bundle", []string{
			pkgBlob("foo", "stable"),
			chBlob("foo", "stable", entry("foo.v0.2.0", "foo.v0.1.0")),
			bundleBlob("foo", "foo.v0.2.0", "0.2.0"),
		}, nil},
		{"skipped bundles are not stranded", []string{
			pkgBlob("foo", "stable"),
			chBlob("foo", "stable", entry("foo.v0.1.0"), `{"name":"foo.v0.2.0","skips":["foo.v0.1.0"]}`),
			bundleBlob("foo", "foo.v0.1.0", "0.1.0"),
			bundleBlob("foo", "foo.v0.2.0", "0.2.0"),
		}, nil},

		// olm.package
		{"package name empty", append([]string{pkgBlob("", "stable")}, validFoo...), []string{
			"catalog.json#0: olm.package: package name must be set",
		}},
		{"duplicate package", append(append([]string{}, validFoo...), pkgBlob("foo", "stable")), []string{
			"catalog.json#4: olm.package foo: duplicate package (first defined at catalog.json#0)",
		}},
		{"package name not a DNS-1123 label", []string{
			pkgBlob("Foo_Bar", "stable"),
			chBlob("Foo_Bar", "stable", entry("b.v1")),
			bundleWith("Foo_Bar", "b.v1", "example.com/test/b:v1", pkgProp("Foo_Bar", "1.0.0")),
		}, []string{
			"catalog.json#0: olm.package Foo_Bar: invalid package name: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
		}},
		{"default channel not set", append([]string{pkgBlob("foo", "")}, validFoo[1:]...), []string{
			"catalog.json#0: olm.package foo: default channel must be set",
		}},
		{"default channel missing", append([]string{pkgBlob("foo", "beta")}, validFoo[1:]...), []string{
			`catalog.json#0: olm.package foo: default channel "beta" not found in the package's channels`,
		}},
		{"package without channels", []string{pkgBlob("foo", "stable")}, []string{
			`catalog.json#0: olm.package foo: default channel "stable" not found in the package's channels`,
			"catalog.json#0: olm.package foo: package must have at least one channel",
		}},

		// olm.channel
		{"channel of unknown package", append(append([]string{}, validFoo...), chBlob("bar", "stable", entry("bar.v1"))), []string{
			`catalog.json#4: olm.channel bar/stable: package "bar" not found`,
		}},
		{"channel package empty", append(append([]string{}, validFoo...), chBlob("", "stable", entry("bar.v1"))), []string{
			"catalog.json#4: olm.channel stable: channel package must be set",
		}},
		{"channel name empty", append(append([]string{}, validFoo...), chBlob("foo", "", entry("foo.v0.1.0"))), []string{
			"catalog.json#4: olm.channel foo: channel name must be set",
		}},
		{"duplicate channel", append(append([]string{}, validFoo...), chBlob("foo", "stable", entry("foo.v0.1.0"))), []string{
			"catalog.json#4: olm.channel foo/stable: duplicate channel (first defined at catalog.json#1)",
		}},
		{"duplicate entry", []string{
			pkgBlob("foo", "stable"),
			chBlob("foo", "stable", entry("foo.v0.1.0"), entry("foo.v0.2.0", "foo.v0.1.0"), entry("foo.v0.1.0")),
			validFoo[2], validFoo[3],
		}, []string{
			`catalog.json#1: olm.channel foo/stable: duplicate entry "foo.v0.1.0"`,
		}},
		{"channel without entries", append(append([]string{}, validFoo...), chBlob("foo", "beta")), []string{
			"catalog.json#4: olm.channel foo/beta: channel must contain at least one bundle",
		}},
		{"entry without bundle", []string{
			pkgBlob("foo", "stable"),
			chBlob("foo", "stable", entry("foo.v0.1.0"), entry("foo.v0.2.0", "foo.v0.1.0"), entry("foo.v0.3.0", "foo.v0.2.0")),
			validFoo[2], validFoo[3],
		}, []string{
			`catalog.json#1: olm.channel foo/stable: entry "foo.v0.3.0": bundle not found`,
		}},
		{"no channel head", []string{
			pkgBlob("foo", "stable"),
			chBlob("foo", "stable", entry("foo.v0.1.0", "foo.v0.2.0"), entry("foo.v0.2.0", "foo.v0.1.0")),
			validFoo[2], validFoo[3],
		}, []string{
			"catalog.json#1: olm.channel foo/stable: no channel head found in graph",
		}},
		{"multiple channel heads", []string{
			pkgBlob("foo", "stable"),
			chBlob("foo", "stable", entry("foo.v0.1.0"), entry("foo.v0.2.0")),
			validFoo[2], validFoo[3],
		}, []string{
			"catalog.json#1: olm.channel foo/stable: multiple channel heads found in graph: foo.v0.1.0, foo.v0.2.0",
		}},
		{"cycle in replaces chain", []string{
			pkgBlob("foo", "stable"),
			chBlob("foo", "stable", entry("foo.v0.3.0", "foo.v0.2.0"), entry("foo.v0.2.0", "foo.v0.1.0"), entry("foo.v0.1.0", "foo.v0.2.0")),
			validFoo[2], validFoo[3], bundleBlob("foo", "foo.v0.3.0", "0.3.0"),
		}, []string{
			"catalog.json#1: olm.channel foo/stable: detected cycle in replaces chain of upgrade graph: foo.v0.3.0 -> foo.v0.2.0 -> foo.v0.1.0 -> foo.v0.2.0",
		}},
		{"stranded bundles", []string{
			pkgBlob("foo", "stable"),
			chBlob("foo", "stable", entry("foo.v0.3.0", "foo.v0.0.1"), entry("foo.v0.2.0", "foo.v0.1.0"), entry("foo.v0.1.0", "foo.v0.2.0")),
			validFoo[2], validFoo[3], bundleBlob("foo", "foo.v0.3.0", "0.3.0"),
		}, []string{
			"catalog.json#1: olm.channel foo/stable: channel contains one or more stranded bundles: foo.v0.1.0, foo.v0.2.0",
		}},
		{"empty skips element", []string{
			pkgBlob("foo", "stable"),
			chBlob("foo", "stable", entry("foo.v0.1.0"), `{"name":"foo.v0.2.0","replaces":"foo.v0.1.0","skips":[""]}`),
			validFoo[2], validFoo[3],
		}, []string{
			`catalog.json#1: olm.channel foo/stable: entry "foo.v0.2.0": skips contains an empty name`,
		}},
		{"invalid skipRange", []string{
			pkgBlob("foo", "stable"),
			chBlob("foo", "stable", entry("foo.v0.1.0"), `{"name":"foo.v0.2.0","replaces":"foo.v0.1.0","skipRange":"<=>0.1"}`),
			validFoo[2], validFoo[3],
		}, []string{
			`catalog.json#1: olm.channel foo/stable: entry "foo.v0.2.0": invalid skipRange "<=>0.1": Could not parse Range "<=>0.1": Could not parse comparator "<=>" in "<=>0.1"`,
		}},

		// olm.bundle
		{"bundle package empty", append(append([]string{}, validFoo...), bundleWith("", "x.v1", "example.com/x:v1", pkgProp("", "1.0.0"))), []string{
			"catalog.json#4: olm.bundle x.v1: bundle package must be set",
		}},
		{"bundle of unknown package", append(append([]string{}, validFoo...), bundleBlob("bar", "bar.v1", "1.0.0")), []string{
			`catalog.json#4: olm.bundle bar/bar.v1: package "bar" not found`,
		}},
		{"bundle name empty", append(append([]string{}, validFoo...), bundleBlob("foo", "", "0.3.0")), []string{
			"catalog.json#4: olm.bundle foo: bundle name must be set",
		}},
		{"duplicate bundle", append(append([]string{}, validFoo...), bundleBlob("foo", "foo.v0.1.0", "0.1.0")), []string{
			"catalog.json#4: olm.bundle foo/foo.v0.1.0: duplicate bundle (first defined at catalog.json#2)",
		}},
		{"property value does not match its schema", []string{
			validFoo[0], validFoo[1], validFoo[2],
			bundleWith("foo", "foo.v0.2.0", "example.com/foo:v0.2.0", pkgProp("foo", "0.2.0"), `{"type":"olm.gvk","value":"Foo"}`),
		}, []string{
			"catalog.json#3: olm.bundle foo/foo.v0.2.0: property #1 (olm.gvk): value does not match the olm.gvk schema: json: cannot unmarshal string into Go value of type declcfg.GVKValue",
		}},
		{"property type empty", []string{
			validFoo[0], validFoo[1], validFoo[2],
			bundleWith("foo", "foo.v0.2.0", "example.com/foo:v0.2.0", pkgProp("foo", "0.2.0"), `{"type":"","value":{}}`),
		}, []string{
			"catalog.json#3: olm.bundle foo/foo.v0.2.0: property #1: type must be set",
		}},
		{"no olm.package property", []string{
			validFoo[0], validFoo[1], validFoo[2],
			bundleWith("foo", "foo.v0.2.0", "example.com/foo:v0.2.0"),
		}, []string{
			"catalog.json#3: olm.bundle foo/foo.v0.2.0: must have exactly one olm.package property, found 0",
		}},
		{"two olm.package properties", []string{
			validFoo[0], validFoo[1], validFoo[2],
			bundleWith("foo", "foo.v0.2.0", "example.com/foo:v0.2.0", pkgProp("foo", "0.2.0"), pkgProp("foo", "0.2.1")),
		}, []string{
			"catalog.json#3: olm.bundle foo/foo.v0.2.0: must have exactly one olm.package property, found 2",
		}},
		{"olm.package names another package", []string{
			validFoo[0], validFoo[1], validFoo[2],
			bundleWith("foo", "foo.v0.2.0", "example.com/foo:v0.2.0", pkgProp("bar", "0.2.0")),
		}, []string{
			`catalog.json#3: olm.bundle foo/foo.v0.2.0: olm.package property packageName "bar" does not match the bundle's package "foo"`,
		}},
		{"version not semver", []string{
			validFoo[0], validFoo[1], validFoo[2],
			bundleWith("foo", "foo.v0.2.0", "example.com/foo:v0.2.0", pkgProp("foo", "v0.2")),
		}, []string{
			`catalog.json#3: olm.bundle foo/foo.v0.2.0: invalid version "v0.2" in olm.package property: No Major.Minor.Patch elements found`,
		}},
		{"no image and no objects", []string{
			validFoo[0], validFoo[1], validFoo[2],
			bundleWith("foo", "foo.v0.2.0", "", pkgProp("foo", "0.2.0")),
		}, []string{
			"catalog.json#3: olm.bundle foo/foo.v0.2.0: bundle image must be set (or bundle objects present)",
		}},
		{"invalid image and related image", []string{
			validFoo[0], validFoo[1], validFoo[2],
			strings.TrimSuffix(bundleWith("foo", "foo.v0.2.0", badImage, pkgProp("foo", "0.2.0")), "}") +
				`,"relatedImages":[{"name":"op","image":"example.com/UPPER/case:v1"},{"name":"ok","image":"example.com/ok/image:v1"}]}`,
		}, []string{
			`catalog.json#3: olm.bundle foo/foo.v0.2.0: invalid image "` + badImage + `": invalid reference format`,
			`catalog.json#3: olm.bundle foo/foo.v0.2.0: invalid related image "example.com/UPPER/case:v1" (name "op"): invalid reference format: repository name (UPPER/case) must be lowercase`,
		}},
		{"bundle in no channel", append(append([]string{}, validFoo...), bundleBlob("foo", "foo.v0.3.0", "0.3.0")), []string{
			"catalog.json#4: olm.bundle foo/foo.v0.3.0: bundle not found in any channel entries",
		}},
		{"duplicate versions", []string{
			validFoo[0], validFoo[1], validFoo[2], bundleBlob("foo", "foo.v0.2.0", "0.1.0"),
		}, []string{
			"catalog.json#0: olm.package foo: duplicate versions found in bundles: 0.1.0: foo.v0.1.0, foo.v0.2.0",
		}},

		{"release", []string{
			validFoo[0],
			chBlob("foo", "stable", entry("foo-v0.1.0-1"), entry("foo-v0.1.0-2", "foo-v0.1.0-1"), entry("foo.v0.2.0", "foo-v0.1.0-2"), entry("foo.v0.3.0", "foo.v0.2.0"), entry("foo.v0.4.0", "foo.v0.3.0")),
			bundleWith("foo", "foo-v0.1.0-1", "example.com/foo:1", `{"type":"olm.package","value":{"packageName":"foo","version":"0.1.0","release":"1"}}`),
			bundleWith("foo", "foo-v0.1.0-2", "example.com/foo:2", `{"type":"olm.package","value":{"packageName":"foo","version":"0.1.0","release":"2"}}`),
			bundleWith("foo", "foo.v0.2.0", "example.com/foo:3", `{"type":"olm.package","value":{"packageName":"foo","version":"0.2.0","release":"a..b"}}`),
			bundleWith("foo", "foo.v0.3.0", "example.com/foo:4", `{"type":"olm.package","value":{"packageName":"foo","version":"0.3.0+build","release":"abcdefghijklmnopqrstuvwxyz"}}`),
			bundleWith("foo", "foo.v0.4.0", "example.com/foo:5", `{"type":"olm.package","value":{"packageName":"foo","version":"0.4.0","release":"01"}}`),
		}, []string{
			`catalog.json#4: olm.bundle foo/foo.v0.2.0: invalid release "a..b" in olm.package property: Prerelease is empty`,
			`catalog.json#4: olm.bundle foo/foo.v0.2.0: bundle name must be "foo-v0.2.0-a..b" for a bundle with release "a..b"`,
			`catalog.json#5: olm.bundle foo/foo.v0.3.0: invalid release "abcdefghijklmnopqrstuvwxyz" in olm.package property: longer than 20 characters`,
			`catalog.json#5: olm.bundle foo/foo.v0.3.0: version "0.3.0+build" has build metadata and a release "abcdefghijklmnopqrstuvwxyz": only one of them is allowed`,
			`catalog.json#5: olm.bundle foo/foo.v0.3.0: bundle name must be "foo-v0.3.0+build-abcdefghijklmnopqrstuvwxyz" for a bundle with release "abcdefghijklmnopqrstuvwxyz"`,
			`catalog.json#6: olm.bundle foo/foo.v0.4.0: invalid release "01" in olm.package property: Numeric PreRelease version must not contain leading zeroes "01"`,
			`catalog.json#6: olm.bundle foo/foo.v0.4.0: bundle name must be "foo-v0.4.0-01" for a bundle with release "01"`,
		}},

		// olm.deprecations
		{"deprecations", append(append([]string{}, validFoo...),
			`{"schema":"olm.deprecations","package":"","entries":[]}`,
			`{"schema":"olm.deprecations","package":"bar","entries":[]}`,
			`{"schema":"olm.deprecations","package":"foo","entries":[`+
				`{"reference":{"schema":"olm.package"},"message":"foo is old"},`+
				`{"reference":{"schema":"olm.package","name":"foo"},"message":"named"},`+
				`{"reference":{"schema":"olm.channel","name":"beta"},"message":"no such channel"},`+
				`{"reference":{"schema":"olm.bundle","name":"foo.v9"},"message":"no such bundle"},`+
				`{"reference":{"schema":"olm.bundle","name":"foo.v0.1.0"},"message":""},`+
				`{"reference":{"schema":"olm.bundle","name":"foo.v0.1.0"},"message":"again"},`+
				`{"reference":{"schema":"olm.thing","name":"x"},"message":"what"},`+
				`{"reference":{"schema":""},"message":"none"}]}`,
			`{"schema":"olm.deprecations","package":"foo","entries":[]}`,
		), []string{
			"catalog.json#4: olm.deprecations: deprecation package must be set",
			`catalog.json#5: olm.deprecations bar: package "bar" not found`,
			`catalog.json#6: olm.deprecations foo: entry #1: olm.package reference must not have a name (got "foo")`,
			`catalog.json#6: olm.deprecations foo: entry #2: channel "beta" not found`,
			`catalog.json#6: olm.deprecations foo: entry #3: bundle "foo.v9" not found`,
			"catalog.json#6: olm.deprecations foo: entry #4: message must be set",
			`catalog.json#6: olm.deprecations foo: entry #5: duplicate reference olm.bundle "foo.v0.1.0"`,
			`catalog.json#6: olm.deprecations foo: entry #6: unknown reference schema "olm.thing" (want olm.package, olm.channel or olm.bundle)`,
			"catalog.json#6: olm.deprecations foo: entry #7: reference schema must be set",
			"catalog.json#7: olm.deprecations foo: duplicate olm.deprecations blob for the package (first defined at catalog.json#6)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, validateBlobs(t, tt.blobs))
		})
	}
}

// TestModelValidateBuiltModel checks a model built elsewhere (as the legacy
// sqlite reader does), where no blob-level check has run.
func TestModelValidateBuiltModel(t *testing.T) {
	mp := &Package{Name: "foo", Channels: map[string]*Channel{}}
	mc := &Channel{Package: mp, Name: "stable", Bundles: map[string]*Bundle{}}
	mp.Channels["stable"] = mc
	mc.Bundles["foo.v1"] = &Bundle{Package: mp, Channel: mc, Name: "foo.v1", Image: "example.com/foo:v1",
		Version: semver.MustParse("1.0.0"), Properties: []declcfg.Property{declcfg.MustProperty(declcfg.PropertyPackage, declcfg.PackageValue{PackageName: "foo", Version: "1.0.0"})}}
	mc.Bundles["foo.v1-again"] = &Bundle{Package: mp, Channel: mc, Name: "foo.v1-again", Replaces: "foo.v1", Skips: []string{""}, SkipRange: "not a range",
		Version: semver.MustParse("1.0.0")}
	m := &Model{Packages: map[string]*Package{"foo": mp}}

	err := m.Validate()
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	var got []string
	for _, p := range ve.Problems {
		got = append(got, p.String())
	}
	require.Equal(t, []string{
		"olm.package foo: default channel must be set",
		`olm.channel foo/stable: entry "foo.v1-again": skips contains an empty name`,
		`olm.channel foo/stable: entry "foo.v1-again": invalid skipRange "not a range": Could not get version from string: "not"`,
		"olm.bundle foo/foo.v1-again: must have exactly one olm.package property, found 0",
		"olm.bundle foo/foo.v1-again: bundle image must be set (or bundle objects present)",
		"olm.package foo: duplicate versions found in bundles: 1.0.0: foo.v1, foo.v1-again",
	}, got)
	require.Contains(t, err.Error(), "invalid catalog: 6 problems:\n  olm.package foo: default channel must be set\n")

	mp.DefaultChannel = mc
	mc.Bundles["foo.v1-again"].Skips = nil
	mc.Bundles["foo.v1-again"].SkipRange = ""
	mc.Bundles["foo.v1-again"].Version = semver.MustParse("1.0.1")
	mc.Bundles["foo.v1-again"].Objects = []string{`{"kind":"ConfigMap"}`}
	mc.Bundles["foo.v1-again"].Properties = []declcfg.Property{declcfg.MustProperty(declcfg.PropertyPackage, declcfg.PackageValue{PackageName: "foo", Version: "1.0.1"})}
	require.NoError(t, m.Validate())
	head, err := mc.Head()
	require.NoError(t, err)
	require.Equal(t, "foo.v1-again", head.Name)
}
