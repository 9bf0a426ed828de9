package migrate

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
)

func TestWithPackages(t *testing.T) {
	db := filepath.Join(fixturesDir, "small-fbb-deprecated", "index.db")
	cfg, _, err := Load(context.Background(), db, WithPackages("foo", "baz"))
	require.NoError(t, err)
	var pkgs []string
	for _, p := range cfg.Packages {
		pkgs = append(pkgs, p.Name)
	}
	assert.Equal(t, []string{"baz", "foo"}, pkgs)
	for _, b := range cfg.Bundles {
		assert.Contains(t, []string{"baz", "foo"}, b.Package)
	}
}

// TestPackageGraphs: the before view is the graph the database served
// (the deprecated bundle still in its channel, flagged deprecated), the
// after view the converted package.
func TestPackageGraphs(t *testing.T) {
	db := filepath.Join(fixturesDir, "small-fbb-deprecated", "index.db")
	var mu sync.Mutex
	before := map[string][]declcfg.ChannelEntry{}
	after := map[string][]declcfg.ChannelEntry{}
	deprecated := map[string]bool{}
	_, _, err := Load(context.Background(), db, WithPackageGraphs(func(b, a *declcfg.DeclarativeConfig) {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range b.Channels {
			before[c.Package+"/"+c.Name] = c.Entries
		}
		for _, c := range a.Channels {
			after[c.Package+"/"+c.Name] = c.Entries
		}
		for _, d := range b.Deprecations {
			for _, e := range d.Entries {
				deprecated[d.Package+"/"+e.Reference.Name] = true
			}
		}
	}))
	require.NoError(t, err)
	assert.Len(t, before, 4)
	assert.Len(t, after, 4)
	names := func(es []declcfg.ChannelEntry) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.Name)
		}
		return out
	}
	assert.Equal(t, []string{"foo.v0.2.0", "foo.v0.3.0", "foo.v0.3.1"}, names(before["foo/beta"]))
	assert.Equal(t, []string{"foo.v0.3.0", "foo.v0.3.1"}, names(after["foo/beta"]))
	assert.Equal(t, map[string]bool{"foo/foo.v0.2.0": true}, deprecated)
	assert.Equal(t, before["bar/stable"], after["bar/stable"], "unchanged channels have the same edges")
}
