package template

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
)

// loadGolden loads a recorded opm render as a catalog.
func loadGolden(t *testing.T, name string) *declcfg.DeclarativeConfig {
	t.Helper()
	cfg, err := declcfg.LoadDir(context.Background(), goldenDir, declcfg.WithFile(name))
	require.NoError(t, err)
	return cfg
}

// loadWritten loads a written catalog, as a catalog read from disk.
func loadWritten(t *testing.T, data string) *declcfg.DeclarativeConfig {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "catalog.json"), []byte(data), 0o644))
	cfg, err := declcfg.LoadDir(context.Background(), dir, declcfg.WithFile("catalog.json"))
	require.NoError(t, err)
	return cfg
}

// renderDerived writes d and renders the written template back.
func renderDerived(t *testing.T, d *Derived, csvMetadata bool) *declcfg.DeclarativeConfig {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, d.Write(&buf, declcfg.FormatYAML))
	cfg, err := Render(context.Background(), buf.Bytes(), WithFile(d.Package+".yaml"), WithBundleRenderer(fixtureRenderer(csvMetadata)))
	require.NoError(t, err)
	return cfg
}

// TestFromPackageSemverRoundTrip: the catalogs opm rendered from semver
// templates give semver templates again, and those render to opm's bytes.
func TestFromPackageSemverRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		golden      string
		csvMetadata bool
		major       bool
		minor       bool
		pref        StreamKind
	}{
		{"render-semver-foo-both.json", false, true, true, ""},
		{"render-semver-foo-major.json", false, true, false, ""},
		{"render-semver-foo-minor.json", false, false, true, ""},
		{"render-semver-foo-prefmajor.json", false, true, true, StreamMajor},
		// Rendered with the bundle objects: the package icon the semver
		// template copies from the CSV is in them (olm.csv.metadata has
		// no icon).
		{"cockroachdb-semver.json", false, true, true, ""},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			var cfg *declcfg.DeclarativeConfig
			want := ""
			if filepath.Ext(tc.golden) == ".json" && strings.HasPrefix(tc.golden, "render-") {
				cfg, want = loadGolden(t, tc.golden), golden(t, tc.golden)
			} else {
				var err error
				cfg, err = renderFile(t, tc.golden, false)
				require.NoError(t, err)
				want = write(t, cfg, declcfg.FormatJSON)
				cfg = loadWritten(t, want)
			}
			d, err := FromPackage(cfg, TypeSemver)
			require.NoError(t, err)
			require.Equal(t, TypeSemver, d.Type, "%s: %s", d.Reason, d.Detail)
			require.Equal(t, tc.major, d.semver.GenerateMajorChannels)
			require.Equal(t, tc.minor, d.semver.GenerateMinorChannels)
			require.Equal(t, tc.pref, d.semver.DefaultChannelTypePreference)
			require.Equal(t, want, write(t, renderDerived(t, d, tc.csvMetadata), declcfg.FormatJSON))
		})
	}
}

// TestFromPackageFallbacks: one package per reason a semver template
// cannot express it; each gets a basic template that renders back to it.
func TestFromPackageFallbacks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   func(cfg *declcfg.DeclarativeConfig)
		reason FallbackReason
		detail string
	}{
		{"version not semver", func(cfg *declcfg.DeclarativeConfig) {
			setVersion(t, cfg, "foo.v0.3.0", "0.3")
		}, ReasonVersion, `bundle foo.v0.3.0 has version "0.3", which is not semver`},
		{"channel name outside the scheme", func(cfg *declcfg.DeclarativeConfig) {
			cfg.Channels[0].Name = "beta"
		}, ReasonChannelName, `channel "beta" is not named <candidate|fast|stable>-v<major>[.<minor>]`},
		{"channel holding another minor", func(cfg *declcfg.DeclarativeConfig) {
			ch := channelNamed(t, cfg, "candidate-v0.1")
			ch.Entries = append(ch.Entries, declcfg.ChannelEntry{Name: "foo.v0.2.0", Replaces: "foo.v0.1.0"})
		}, ReasonChannelName, "channel candidate-v0.1 holds foo.v0.2.0, version 0.2.0"},
		{"hand-made skips", func(cfg *declcfg.DeclarativeConfig) {
			ch := channelNamed(t, cfg, "candidate-v0.2")
			ch.Entries[0].Skips = []string{"foo.v0.1.5"}
		}, ReasonEdges, "channel candidate-v0.2 entry foo.v0.2.0 has replaces foo.v0.1.0, skips [foo.v0.1.5]; the semver template gives replaces foo.v0.1.0, skips []"},
		{"hand-made replaces", func(cfg *declcfg.DeclarativeConfig) {
			ch := channelNamed(t, cfg, "candidate-v0.3")
			ch.Entries[0].Replaces = "foo.v0.2.0"
		}, ReasonEdges, "channel candidate-v0.3 entry foo.v0.3.0 has replaces foo.v0.2.0, skips []; the semver template gives replaces none, skips []"},
		{"skipRange", func(cfg *declcfg.DeclarativeConfig) {
			ch := channelNamed(t, cfg, "stable-v0.2")
			ch.Entries[0].SkipRange = "<0.2.0"
		}, ReasonEdges, "skipRange <0.2.0"},
		{"default channel", func(cfg *declcfg.DeclarativeConfig) {
			cfg.Packages[0].DefaultChannel = "candidate-v0.3"
		}, ReasonDefaultChannel, "the default channel is candidate-v0.3; the semver template picks stable-v0.2"},
		{"deprecations", func(cfg *declcfg.DeclarativeConfig) {
			cfg.Deprecations = append(cfg.Deprecations, declcfg.Deprecation{Schema: declcfg.SchemaDeprecations, Package: "foo",
				Entries: []declcfg.DeprecationEntry{{Reference: declcfg.PackageScopedReference{Schema: declcfg.SchemaBundle, Name: "foo.v0.1.0"}, Message: "old"}}})
		}, ReasonBlobs, "olm.deprecations"},
		{"package description", func(cfg *declcfg.DeclarativeConfig) {
			cfg.Packages[0].Description = "hand-written"
		}, ReasonBlobs, "description"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := loadGolden(t, "render-semver-foo-both.json")
			tc.edit(cfg)
			d, err := FromPackage(cfg, TypeSemver)
			require.NoError(t, err)
			require.Equal(t, TypeBasic, d.Type)
			require.Equal(t, tc.reason, d.Reason)
			require.Contains(t, d.Detail, tc.detail)
			if tc.reason == ReasonVersion {
				return // the fixture bundle renders its real version
			}
			var want, got bytes.Buffer
			require.NoError(t, declcfg.WriteJSON(&want, cfg))
			require.NoError(t, declcfg.WriteJSON(&got, renderDerived(t, d, false)))
			require.Equal(t, want.String(), got.String())
		})
	}
}

// TestFromPackageRefusesBundlesWithoutImage: a template names bundles by
// image, so a bundle without one (or two bundles with the same) cannot be
// written.
func TestFromPackageRefusesBundlesWithoutImage(t *testing.T) {
	cfg := loadGolden(t, "render-semver-foo-both.json")
	cfg.Bundles[1].Image = ""
	_, err := FromPackage(cfg, TypeBasic)
	require.EqualError(t, err, "package foo: bundle foo.v0.2.0 has no image: a template names bundles by image only")
	cfg.Bundles[1].Image = cfg.Bundles[0].Image
	_, err = FromPackage(cfg, TypeBasic)
	require.ErrorContains(t, err, "have the same image")
}

func channelNamed(t *testing.T, cfg *declcfg.DeclarativeConfig, name string) *declcfg.Channel {
	t.Helper()
	for i := range cfg.Channels {
		if cfg.Channels[i].Name == name {
			return &cfg.Channels[i]
		}
	}
	require.Failf(t, "no such channel", "channel %s", name)
	return nil
}

func setVersion(t *testing.T, cfg *declcfg.DeclarativeConfig, bundle, version string) {
	t.Helper()
	for i := range cfg.Bundles {
		if cfg.Bundles[i].Name != bundle {
			continue
		}
		for j, p := range cfg.Bundles[i].Properties {
			if p.Type == declcfg.PropertyPackage {
				v, err := json.Marshal(declcfg.PackageValue{PackageName: "foo", Version: version})
				require.NoError(t, err)
				cfg.Bundles[i].Properties[j].Value = v
			}
		}
	}
}
