package parity

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/registry/api"
)

// The ListBundles answer lives on disk: a spill reads back one package at
// a time and keeps only the last few packages' indexes.
func TestSpillKeepsFewPackages(t *testing.T) {
	dir := t.TempDir()
	sp, err := newSpill(dir)
	require.NoError(t, err)
	const packages, perPackage = 3 * recentIndexes, 4
	for i := range packages * perPackage {
		// Interleaved, as a server may stream them.
		pkg := fmt.Sprintf("pkg-%02d", i%packages)
		require.NoError(t, sp.add(&api.Bundle{PackageName: pkg, ChannelName: "stable", CsvName: fmt.Sprintf("%s.v%d", pkg, i),
			Properties: []*api.Property{{Type: declcfg.PropertyDeprecated, Value: "{}"}}}))
	}
	for i := range packages {
		pkg := fmt.Sprintf("pkg-%02d", i)
		idx := sp.index(pkg)
		assert.Len(t, idx.bundles, perPackage, pkg)
		for k, b := range idx.bundles {
			assert.Equal(t, pkg, k.pkg)
			assert.True(t, idx.deprecated[pn{pkg, b.GetCsvName()}])
		}
		assert.LessOrEqual(t, len(sp.recent), recentIndexes)
	}
	again := sp.index("pkg-00")
	assert.Len(t, again.bundles, perPackage, "an evicted package reads back whole")
	bundles, err := sp.bundles("pkg-01")
	require.NoError(t, err)
	assert.True(t, proto.Equal(&api.Bundle{PackageName: "pkg-01", ChannelName: "stable", CsvName: "pkg-01.v1",
		Properties: []*api.Property{{Type: declcfg.PropertyDeprecated, Value: "{}"}}}, bundles[0]))
	assert.Empty(t, sp.index("no-such-package").bundles)
	require.NoError(t, sp.failed())
	require.NoError(t, sp.close())
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, ents)
}

// The spill files go to the temporary directory and are gone when the
// check ends.
func TestCheckRemovesItsSpills(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	_, err := Check(context.Background(), fixtureDB("small-fbb"), fixtureOPM("small-fbb"))
	require.NoError(t, err)
	left, err := os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, left)
}

// A large bundle (over 16 MiB) reads back whole, between short ones of
// the same package.
func TestSpillReadsLongBundles(t *testing.T) {
	sp, err := newSpill(t.TempDir())
	require.NoError(t, err)
	defer sp.close()
	long := strings.Repeat("x", 1<<24+10)
	want := []*api.Bundle{
		{PackageName: "p", CsvName: "a"},
		{PackageName: "p", CsvName: "b", Properties: []*api.Property{{Type: "test.long", Value: long}}},
		{PackageName: "q", CsvName: "c"},
		{PackageName: "p", CsvName: "d"},
	}
	for _, b := range want {
		require.NoError(t, sp.add(b))
	}
	got, err := sp.bundles("p")
	require.NoError(t, err)
	require.Len(t, got, 3)
	for i, w := range []*api.Bundle{want[0], want[1], want[3]} {
		assert.True(t, proto.Equal(w, got[i]), "bundle %d", i)
	}
}
