package parity

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/operator-catalog/olmcat/registry/api"
)

// endSnapshot is a Report that copies what buf holds when the check
// ends, before the reports after it finish the document.
type endSnapshot struct {
	buf  *bytes.Buffer
	seen []byte
}

func (e *endSnapshot) Begin(SideInfo, SideInfo) error { return nil }
func (e *endSnapshot) Diff(Diff) error                { return nil }
func (e *endSnapshot) End(*Result) error {
	e.seen = bytes.Clone(e.buf.Bytes())
	return nil
}

// The JSON report is written while the check runs: every difference is
// out before the check ends, and the document holds what the Result
// holds, with every difference.
func TestJSONReportIsWrittenAsTheCheckRuns(t *testing.T) {
	ctx := context.Background()
	db, dir := fixtureDB("edge-substitutes"), fixtureOPM("edge-substitutes")
	full, err := Check(ctx, db, dir)
	require.NoError(t, err)
	require.NotEmpty(t, full.Losses())

	var out bytes.Buffer
	snap := &endSnapshot{buf: &out}
	res, err := Check(ctx, db, dir, WithReport(snap), WithReport(JSONReport(&out, -1)), WithMaxDiffs(0))
	require.NoError(t, err)
	assert.Empty(t, res.Diffs, "WithMaxDiffs(0) keeps none")
	assert.Contains(t, string(snap.seen), `"rule": "`+RuleDependencyMissing.Name+`"`, "differences written before the end")
	assert.NotContains(t, string(snap.seen), `"stats"`, "statistics come at the end")

	var streamed, whole map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(out.Bytes(), &streamed), out.String())
	var w bytes.Buffer
	require.NoError(t, full.WriteJSON(&w))
	require.NoError(t, json.Unmarshal(w.Bytes(), &whole))
	assert.ElementsMatch(t, keysOfRaw(whole), keysOfRaw(streamed), "same fields as Result.WriteJSON")
	for _, k := range []string{"left", "right", "stats", "calls", "benignCalls", "lossCalls", "diffCounts", "rulesSeen", "graph", "graphChannels", "diffsOmitted"} {
		assert.JSONEq(t, string(whole[k]), string(streamed[k]), k)
	}
	var diffs []Diff
	require.NoError(t, json.Unmarshal(streamed["diffs"], &diffs))
	assert.ElementsMatch(t, full.Diffs, diffs)
}

func keysOfRaw(m map[string]json.RawMessage) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// --max-diffs bounds the JSON document and the Result; the counts still
// cover every difference.
func TestMaxDiffs(t *testing.T) {
	ctx := context.Background()
	db, dir := fixtureDB("edge-substitutes"), fixtureOPM("edge-substitutes")
	full, err := Check(ctx, db, dir)
	require.NoError(t, err)
	total := full.DiffCounts[Loss] + full.DiffCounts[Benign]
	require.Len(t, full.Diffs, total)
	require.Greater(t, total, 5)
	assert.Zero(t, full.DiffsOmitted)

	var out bytes.Buffer
	res, err := Check(ctx, db, dir, WithMaxDiffs(5), WithReport(JSONReport(&out, 3)))
	require.NoError(t, err)
	assert.Equal(t, full.Diffs[:5], res.Diffs, "the first five, losses first")
	assert.Equal(t, total-5, res.DiffsOmitted)
	assert.Equal(t, full.DiffCounts, res.DiffCounts)
	assert.Equal(t, full.RulesSeen, res.RulesSeen)
	assert.Equal(t, full.Stats, res.Stats)
	assert.Equal(t, full.Err(false).Error(), res.Err(false).Error())

	var doc struct {
		Diffs        []Diff `json:"diffs"`
		DiffsOmitted int    `json:"diffsOmitted"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &doc))
	assert.Len(t, doc.Diffs, 3)
	assert.Equal(t, total-3, doc.DiffsOmitted)
}

// The ListBundles answer lives on disk: a spill reads back one package at
// a time and keeps only the last few packages' indexes.
func TestSpillKeepsFewPackages(t *testing.T) {
	sp, err := newSpill(t.TempDir())
	require.NoError(t, err)
	const packages, perPackage = 3 * recentIndexes, 4
	for i := range packages * perPackage {
		// Interleaved, as a server may stream them.
		pkg := fmt.Sprintf("pkg-%02d", i%packages)
		require.NoError(t, sp.add(&api.Bundle{PackageName: pkg, ChannelName: "stable", CsvName: fmt.Sprintf("%s.v%d", pkg, i),
			Properties: []*api.Property{{Type: typeDeprecated, Value: "{}"}}}))
	}
	require.NoError(t, sp.done())
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
		Properties: []*api.Property{{Type: typeDeprecated, Value: "{}"}}}, bundles[0]))
	assert.Empty(t, sp.index("no-such-package").bundles)
	require.NoError(t, sp.failed())
	name := sp.f.Name()
	require.NoError(t, sp.close())
	_, err = os.Stat(name)
	assert.ErrorIs(t, err, os.ErrNotExist)
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

// A bundle too long for a span's length bits reads back whole, between
// short ones of the same package.
func TestSpillReadsLongBundles(t *testing.T) {
	sp, err := newSpill(t.TempDir())
	require.NoError(t, err)
	defer sp.close()
	long := strings.Repeat("x", spanLong+10)
	want := []*api.Bundle{
		{PackageName: "p", CsvName: "a"},
		{PackageName: "p", CsvName: "b", Properties: []*api.Property{{Type: "test.long", Value: long}}},
		{PackageName: "q", CsvName: "c"},
		{PackageName: "p", CsvName: "d"},
	}
	for _, b := range want {
		require.NoError(t, sp.add(b))
	}
	require.NoError(t, sp.done())
	got, err := sp.bundles("p")
	require.NoError(t, err)
	require.Len(t, got, 3)
	for i, w := range []*api.Bundle{want[0], want[1], want[3]} {
		assert.True(t, proto.Equal(w, got[i]), "bundle %d", i)
	}
}
