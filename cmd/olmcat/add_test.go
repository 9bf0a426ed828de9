package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

const fixtureBundles = "../../fixtures/bundles"

// channelEntries reads the channels of pkg in a catalog dir.
func channelEntries(t *testing.T, dir, pkg string) map[string][]declcfg.ChannelEntry {
	t.Helper()
	out, stderr, code := runCLI(t, "render", dir)
	require.Equal(t, 0, code, stderr)
	got := map[string][]declcfg.ChannelEntry{}
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var c declcfg.Channel
		require.NoError(t, dec.Decode(&c))
		if c.Schema == declcfg.SchemaChannel && c.Package == pkg {
			got[c.Name] = c.Entries
		}
	}
	return got
}

// TestAddCommand adds real bundles (images through the loopback registry
// and directories) to a real catalog: a new package, new channels,
// existing channels with replaces, skips and skipRange; an addition that
// would make the catalog invalid writes nothing.
func TestAddCommand(t *testing.T) {
	reg := imagetest.New(t)
	tmp, flags := imageTestEnv(t)
	cat := filepath.Join(t.TempDir(), "catalog")
	copyTree(t, "../../fixtures/legacy/small-fbb/opm-migrate", cat)
	etcd090 := pushBundleImage(t, reg, "etcd-bundle:v0.9.0", filepath.Join(fixtureBundles, "opm-bundles/etcd.0.9.0"))
	etcd092 := pushBundleImage(t, reg, "etcd-bundle:v0.9.2", filepath.Join(fixtureBundles, "opm-bundles/etcd.0.9.2"))
	couch := func(v string) string { return filepath.Join(fixtureBundles, "community/couchdb-operator", v) }

	// A new package: package blob (default channel from the annotations)
	// and three new channels.
	_, stderr, code := runCLI(t, append([]string{"add", cat, etcd090}, flags...)...)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "created package etcd (default channel stable)")
	require.FileExists(t, filepath.Join(cat, "etcd", "catalog.json"))
	require.Equal(t, map[string][]declcfg.ChannelEntry{
		"alpha": {{Name: "etcdoperator.v0.9.0"}}, "beta": {{Name: "etcdoperator.v0.9.0"}}, "stable": {{Name: "etcdoperator.v0.9.0"}},
	}, channelEntries(t, cat, "etcd"))

	// Existing channels: replaces and skips from the CSV.
	_, stderr, code = runCLI(t, append([]string{"add", cat, etcd092}, flags...)...)
	require.Equal(t, 0, code, stderr)
	e092 := declcfg.ChannelEntry{Name: "etcdoperator.v0.9.2", Replaces: "etcdoperator.v0.9.0", Skips: []string{"etcdoperator.v0.9.1"}}
	got := channelEntries(t, cat, "etcd")
	require.Equal(t, []declcfg.ChannelEntry{{Name: "etcdoperator.v0.9.0"}, e092}, got["alpha"])
	require.Equal(t, []declcfg.ChannelEntry{{Name: "etcdoperator.v0.9.0"}, e092}, got["stable"])
	out, _, code := runCLI(t, "render", filepath.Join(cat, "etcd"))
	require.Equal(t, 0, code)
	require.Contains(t, out, `"image": "`+etcd092+`"`)

	// Bundle directories, a skipRange, and two bundles in one call.
	_, stderr, code = runCLI(t, append([]string{"add", cat, couch("1.4.2")}, flags...)...)
	require.Equal(t, 0, code, stderr)
	_, stderr, code = runCLI(t, append([]string{"add", cat, couch("1.4.3"), couch("1.4.4")}, flags...)...)
	require.Equal(t, 0, code, stderr)
	got = channelEntries(t, cat, "couchdb-operator")
	require.Equal(t, []declcfg.ChannelEntry{
		{Name: "couchdb-operator.v1.4.2", SkipRange: ">=1.0.0 <1.4.2"},
		{Name: "couchdb-operator.v1.4.3", Replaces: "couchdb-operator.v1.4.2", SkipRange: ">=1.0.0 <1.4.3"},
		{Name: "couchdb-operator.v1.4.4", Replaces: "couchdb-operator.v1.4.3"},
	}, got["v1.4"])
	_, stderr, code = runCLI(t, "validate", cat)
	require.Equal(t, 0, code, stderr)

	// 1.1.0 replaces nothing: a second head in beta and stable. Nothing
	// is written; the same bundle twice is refused too.
	before := snapshotTree(t, cat)
	_, stderr, code = runCLI(t, append([]string{"add", cat, couch("1.1.0")}, flags...)...)
	require.Equal(t, exitInvalid, code)
	require.Contains(t, stderr, "nothing was written")
	_, stderr, code = runCLI(t, append([]string{"add", cat, couch("1.4.4")}, flags...)...)
	require.Equal(t, exitInvalid, code)
	require.Contains(t, stderr, "Bundle already added that provides package and csv (bundle couchdb-operator.v1.4.4")
	require.Equal(t, before, snapshotTree(t, cat))
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(cat), ".catalog.tmp-*"))
	require.Empty(t, left)
	assertNoImageTemp(t, tmp)
}

// TestAddObjectsLayout: a package folder in the objects layout stays in
// it.
func TestAddObjectsLayout(t *testing.T) {
	_, flags := imageTestEnv(t)
	cat := filepath.Join(t.TempDir(), "catalog")
	_, stderr, code := runCLI(t, "convert", "../../fixtures/legacy/small-fbb/opm-migrate", cat, "--layout", "objects", "-q")
	require.Equal(t, 0, code, stderr)
	_, stderr, code = runCLI(t, append([]string{"add", cat, filepath.Join(fixtureBundles, "opm-bundles/etcd.0.9.0")}, flags...)...)
	require.Equal(t, 0, code, stderr)
	require.DirExists(t, filepath.Join(cat, "etcd", "objects"))
	_, stderr, code = runCLI(t, "validate", cat)
	require.Equal(t, 0, code, stderr)
}

// TestAddWritesAllOrNothing: when one of the changed packages cannot be
// written back (its blobs sit in a file at the catalog root), no package
// is written, not even the one that could be.
func TestAddWritesAllOrNothing(t *testing.T) {
	_, flags := imageTestEnv(t)
	cat := filepath.Join(t.TempDir(), "catalog")
	copyTree(t, "../../fixtures/legacy/small-fbb/opm-migrate", cat)
	require.NoError(t, os.WriteFile(filepath.Join(cat, "etcd.json"), []byte(`{"schema":"olm.package","name":"etcd","defaultChannel":"stable"}`), 0o644))
	before := snapshotTree(t, cat)
	_, stderr, code := runCLI(t, append([]string{"add", cat,
		filepath.Join(fixtureBundles, "community/couchdb-operator/1.4.2"),
		filepath.Join(fixtureBundles, "opm-bundles/etcd.0.9.0")}, flags...)...)
	require.Equal(t, exitInvalid, code)
	require.Contains(t, stderr, "package etcd has blobs in etcd.json at the catalog root")
	require.Equal(t, before, snapshotTree(t, cat))
}

// TestAddModes: olmcat add --mode follows opm's graph update modes,
// including the default channel: in replaces mode the highest bundle's
// annotation wins (cockroachdb 5.0.x names stable-5.x), in semver mode
// the last bundle's; a bad --mode is a usage error naming the flag value.
func TestAddModes(t *testing.T) {
	_, flags := imageTestEnv(t)
	roach := func(vs ...string) []string {
		var out []string
		for _, v := range vs {
			out = append(out, filepath.Join(fixtureBundles, "community/cockroachdb", v))
		}
		return out
	}
	defaultChannel := func(dir string) string {
		out, stderr, code := runCLI(t, "render", dir)
		require.Equal(t, 0, code, stderr)
		var p declcfg.Package
		require.NoError(t, json.NewDecoder(strings.NewReader(out)).Decode(&p))
		return p.DefaultChannel
	}
	for _, mode := range []string{"replaces", "semver"} {
		t.Run(mode, func(t *testing.T) {
			cat := t.TempDir()
			args := append([]string{"add", cat, "--mode", mode}, roach("2.0.9", "2.1.1", "2.1.11", "3.0.7")...)
			_, stderr, code := runCLI(t, append(args, flags...)...)
			require.Equal(t, 0, code, stderr)
			require.Equal(t, "stable-3.x", defaultChannel(cat))
			args = append([]string{"add", cat, "--mode", mode}, roach("5.0.4", "5.0.3")...)
			_, stderr, code = runCLI(t, append(args, flags...)...)
			require.Equal(t, 0, code, stderr)
			require.Contains(t, stderr, "package cockroachdb: default channel stable-3.x -> stable-5.x")
			require.Equal(t, "stable-5.x", defaultChannel(cat))
			want := []declcfg.ChannelEntry{{Name: "cockroachdb.v5.0.3"}, {Name: "cockroachdb.v5.0.4", Replaces: "cockroachdb.v5.0.3"}}
			require.Equal(t, want, channelEntries(t, cat, "cockroachdb")["stable-5.x"])
		})
	}
	_, stderr, code := runCLI(t, "add", t.TempDir(), roach("5.0.3")[0], "--mode", "bogus")
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "Invalid channel update mode bogus specified")
}
