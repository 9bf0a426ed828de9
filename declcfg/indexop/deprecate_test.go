package indexop

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/model"
)

// chainPackage is package p with one channel per name in channels, each
// holding the chain 1.1.0 <- 1.2.0 <- 1.3.0 <- 1.4.0 (opm's example),
// default channel the first; channel "side" (if named) holds only 1.1.0
// and 1.2.0.
func chainPackage(channels ...string) *declcfg.DeclarativeConfig {
	cfg := &declcfg.DeclarativeConfig{Packages: []declcfg.Package{{Schema: declcfg.SchemaPackage, Name: "p", DefaultChannel: channels[0]}}}
	versions := []string{"1.1.0", "1.2.0", "1.3.0", "1.4.0"}
	for _, c := range channels {
		ch := declcfg.Channel{Schema: declcfg.SchemaChannel, Name: c, Package: "p"}
		for i, v := range versions {
			if c == "side" && i > 1 {
				break
			}
			e := declcfg.ChannelEntry{Name: "p.v" + v}
			if i > 0 {
				e.Replaces = "p.v" + versions[i-1]
			}
			ch.Entries = append(ch.Entries, e)
		}
		cfg.Channels = append(cfg.Channels, ch)
	}
	for _, v := range versions {
		cfg.Bundles = append(cfg.Bundles, declcfg.Bundle{Schema: declcfg.SchemaBundle, Name: "p.v" + v, Package: "p", Image: "img/p:" + v,
			Properties: []declcfg.Property{declcfg.MustProperty(declcfg.PropertyPackage, declcfg.PackageValue{PackageName: "p", Version: v})}})
	}
	return cfg
}

// TestDeprecation: opm's deprecatetruncate on one package, step by step
// (Survey, Check, PlanRemoval, Apply, Err): the truncated channels, the
// bundles left, and opm's refusals.
func TestDeprecation(t *testing.T) {
	for _, tc := range []struct {
		name     string
		pkg      *declcfg.DeclarativeConfig
		images   []string
		removal  bool
		checkErr string
		planErr  string
		err      string
		removed  bool
		want     map[string][]string
		bundles  int
	}{
		{name: "opm's example", pkg: chainPackage("stable", "beta"), images: []string{"img/p:1.3.0"},
			want: map[string][]string{"stable": {"p.v1.3.0", "p.v1.4.0<p.v1.3.0"}, "beta": {"p.v1.3.0", "p.v1.4.0<p.v1.3.0"}}, bundles: 2},
		{name: "shared tail stays in its other channel", pkg: chainPackage("stable", "side"), images: []string{"img/p:1.3.0"},
			want: map[string][]string{"stable": {"p.v1.3.0", "p.v1.4.0<p.v1.3.0"}, "side": {"p.v1.1.0", "p.v1.2.0<p.v1.1.0"}}, bundles: 4},
		{name: "the default channel's head", pkg: chainPackage("stable"), images: []string{"img/p:1.4.0"},
			err: "error deprecating bundle img/p:1.4.0: Bundle deprecation causing default channel removal"},
		{name: "two refusals", pkg: chainPackage("stable"), images: []string{"img/p:1.4.0", "img/p:1.4.0"},
			err: "[error deprecating bundle img/p:1.4.0: Bundle deprecation causing default channel removal, error deprecating bundle img/p:1.4.0: Bundle deprecation causing default channel removal]"},
		{name: "missing image", pkg: chainPackage("stable"), images: []string{"img/q:1", "img/p:1.2.0"},
			checkErr: "target bundlepaths for deprecation missing from registry: [img/q:1]",
			want:     map[string][]string{"stable": {"p.v1.2.0", "p.v1.3.0<p.v1.2.0", "p.v1.4.0<p.v1.3.0"}}, bundles: 3},
		{name: "package removal", pkg: chainPackage("stable"), images: []string{"img/p:1.4.0"}, removal: true, removed: true},
		{name: "package removal without every head", pkg: chainPackage("stable", "side"), images: []string{"img/p:1.4.0"}, removal: true,
			planErr: "cannot deprecate default channel head from package without removing all other channel heads in package p: must deprecate img/p:1.2.0, head of channel side",
			err:     "error deprecating bundle img/p:1.4.0: Bundle deprecation causing default channel removal"},
		{name: "an earlier deprecation truncated the next", pkg: chainPackage("stable"), images: []string{"img/p:1.3.0", "img/p:1.2.0"},
			want: map[string][]string{"stable": {"p.v1.3.0", "p.v1.4.0<p.v1.3.0"}}, bundles: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDeprecation(tc.images)
			d.Survey(tc.pkg)
			if err := d.Check(); tc.checkErr != "" {
				require.EqualError(t, err, tc.checkErr)
			} else {
				require.NoError(t, err)
			}
			if tc.removal {
				if err := d.PlanRemoval(); tc.planErr != "" {
					require.EqualError(t, err, tc.planErr)
				} else {
					require.NoError(t, err)
				}
			}
			before := entries(tc.pkg)
			got, _ := d.Apply(tc.pkg)
			require.Equal(t, before, entries(tc.pkg), "input not modified")
			if tc.err != "" {
				require.EqualError(t, d.Err(), tc.err)
				return
			}
			require.NoError(t, d.Err())
			if tc.removed {
				require.Nil(t, got)
				return
			}
			require.Equal(t, tc.want, entries(got))
			require.Len(t, got.Bundles, tc.bundles)
			require.Len(t, got.Deprecations, 1)
			_, err := model.FromDeclcfg(got)
			require.NoError(t, err)
		})
	}
}
