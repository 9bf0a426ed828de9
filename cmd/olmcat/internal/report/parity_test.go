package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/cmd/olmcat/internal/report"
	"github.com/operator-catalog/olmcat/registry/parity"
)

var legacyFixtures = filepath.Join("..", "..", "..", "..", "fixtures", "legacy")

func fixtureDB(name string) string  { return filepath.Join(legacyFixtures, name, "index.db") }
func fixtureOPM(name string) string { return filepath.Join(legacyFixtures, name, "opm-migrate") }

func TestParityTextAndJSON(t *testing.T) {
	res, err := parity.Check(context.Background(), fixtureDB("edge-substitutes"), fixtureOPM("edge-substitutes"))
	require.NoError(t, err)

	var text strings.Builder
	require.NoError(t, report.WriteParityText(&text, res, 2, false))
	out := text.String()
	assert.Contains(t, out, "GetBundle ")
	assert.Contains(t, out, "Differences (first 2 of ")
	assert.Contains(t, out, "LOSS: ")
	assert.Contains(t, out, parity.RuleDependencyMissing.Name)
	assert.Equal(t, 2, strings.Count(out, "rule:  "))

	var js strings.Builder
	require.NoError(t, report.WriteParityJSON(&js, res))
	assert.Contains(t, js.String(), `"rule": "dependency-missing"`)
	assert.Contains(t, js.String(), fmt.Sprintf(`"lossCalls": %d`, res.LossCalls))
}

// endSnapshot is a Report that copies what buf holds when the check
// ends, before the reports after it finish the document.
type endSnapshot struct {
	buf  *bytes.Buffer
	seen []byte
}

func (e *endSnapshot) Begin(parity.SideInfo, parity.SideInfo) error { return nil }
func (e *endSnapshot) Diff(parity.Diff) error                       { return nil }
func (e *endSnapshot) End(*parity.Result) error {
	e.seen = bytes.Clone(e.buf.Bytes())
	return nil
}

// The JSON report is written while the check runs: every difference is
// out before the check ends, and the document holds what the parity.Result
// holds, with every difference.
func TestParityJSONIsWrittenAsTheCheckRuns(t *testing.T) {
	ctx := context.Background()
	db, dir := fixtureDB("edge-substitutes"), fixtureOPM("edge-substitutes")
	full, err := parity.Check(ctx, db, dir)
	require.NoError(t, err)
	require.NotEmpty(t, full.Losses())

	var out bytes.Buffer
	snap := &endSnapshot{buf: &out}
	res, err := parity.Check(ctx, db, dir, parity.WithReport(snap), parity.WithReport(report.ParityJSON(&out, -1)), parity.WithMaxDiffs(0))
	require.NoError(t, err)
	assert.Empty(t, res.Diffs, "WithMaxDiffs(0) keeps none")
	assert.Contains(t, string(snap.seen), `"rule": "`+parity.RuleDependencyMissing.Name+`"`, "differences written before the end")
	assert.NotContains(t, string(snap.seen), `"stats"`, "statistics come at the end")

	var streamed, whole map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(out.Bytes(), &streamed), out.String())
	var w bytes.Buffer
	require.NoError(t, report.WriteParityJSON(&w, full))
	require.NoError(t, json.Unmarshal(w.Bytes(), &whole))
	assert.ElementsMatch(t, keysOfRaw(whole), keysOfRaw(streamed), "same fields as parity.Result.WriteJSON")
	for _, k := range []string{"left", "right", "stats", "calls", "benignCalls", "lossCalls", "diffCounts", "rulesSeen", "graph", "graphChannels", "diffsOmitted"} {
		assert.JSONEq(t, string(whole[k]), string(streamed[k]), k)
	}
	var diffs []parity.Diff
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

// --max-diffs bounds the JSON document and the parity.Result; the counts still
// cover every difference.
func TestParityJSONMaxDiffs(t *testing.T) {
	ctx := context.Background()
	db, dir := fixtureDB("edge-substitutes"), fixtureOPM("edge-substitutes")
	full, err := parity.Check(ctx, db, dir)
	require.NoError(t, err)
	total := full.DiffCounts[parity.Loss] + full.DiffCounts[parity.Benign]
	require.Len(t, full.Diffs, total)
	require.Greater(t, total, 5)
	assert.Zero(t, full.DiffsOmitted)

	var out bytes.Buffer
	res, err := parity.Check(ctx, db, dir, parity.WithMaxDiffs(5), parity.WithReport(report.ParityJSON(&out, 3)))
	require.NoError(t, err)
	assert.Equal(t, full.Diffs[:5], res.Diffs, "the first five, losses first")
	assert.Equal(t, total-5, res.DiffsOmitted)
	assert.Equal(t, full.DiffCounts, res.DiffCounts)
	assert.Equal(t, full.RulesSeen, res.RulesSeen)
	assert.Equal(t, full.Stats, res.Stats)
	assert.Equal(t, full.Err(false).Error(), res.Err(false).Error())

	var doc struct {
		Diffs        []parity.Diff `json:"diffs"`
		DiffsOmitted int           `json:"diffsOmitted"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &doc))
	assert.Len(t, doc.Diffs, 3)
	assert.Equal(t, total-3, doc.DiffsOmitted)
}
