package report_test

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	report "github.com/operator-catalog/olmcat/cmd/olmcat/internal/report"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/graph"
	"github.com/operator-catalog/olmcat/migrate"
	"github.com/operator-catalog/olmcat/registry/parity"
)

// noExternal matches anything a page could fetch: URLs in attributes or
// CSS, and elements that load resources.
var noExternal = regexp.MustCompile(`(?i)(src=|href=|url\((?:[^#)]|$)|@import|<link|<img|<iframe|https?://[^"\s]*\.(js|css|png))`)

func TestMigrationPageIsDeterministicAndSelfContained(t *testing.T) {
	db := filepath.Join("..", "..", "..", "..", "fixtures", "legacy", "small-fbb-deprecated", "index.db")
	render := func() string {
		graphs := report.NewMigrationGraphs()
		rep, err := migrate.Render(context.Background(), db, &bytes.Buffer{}, migrate.WithPackageGraphs(graphs.Add), migrate.WithWorkers(4))
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, report.WriteMigration(&b, rep, graphs))
		return b.String()
	}
	first := render()
	for i := 0; i < 3; i++ {
		assert.Equal(t, first, render(), "same input, same bytes")
	}
	assert.NotRegexp(t, noExternal, first)
	assert.Contains(t, first, "Content-Security-Policy")
	// The dropped deprecated bundle is in foo's before graph, not its after.
	foo := first[strings.Index(first, `<details class="package" data-package="foo">`):]
	before := foo[strings.Index(foo, `class="graph before"`):strings.Index(foo, `class="graph after"`)]
	assert.Regexp(t, `class="node [^"]*dropped" data-name="foo.v0.2.0"`, before)
	assert.Equal(t, 3, strings.Count(first, `<details class="package"`))
}

func TestParityPage(t *testing.T) {
	res := &parity.Result{
		Left:  parity.SideInfo{Ref: "index.db", Kind: "sqlite"},
		Right: parity.SideInfo{Ref: "catalog", Kind: "declcfg"},
		Stats: []parity.RPCStats{{RPC: parity.RPCGetBundle, Calls: 3, Identical: 1, Benign: 1, Losses: 1}},
		Calls: 3, BenignCalls: 1, LossCalls: 1,
		Diffs: []parity.Diff{
			{RPC: parity.RPCGetBundle, Request: "csvName=a", Path: ".image", Left: "x", Right: "<y>", Class: parity.Loss, Rule: "loss-rule"},
			{RPC: parity.RPCGetBundle, Request: "csvName=b", Path: ".plural", Left: "bars", Right: "", Class: parity.Benign, Rule: "plural-sqlite-only", Explanation: "why"},
		},
	}
	var b bytes.Buffer
	require.NoError(t, report.WriteParity(&b, res))
	page := b.String()
	assert.NotRegexp(t, noExternal, page)
	assert.Contains(t, page, `<tr class="rpc" data-rpc="GetBundle"><td>GetBundle</td><td class="n">3</td><td class="n">1</td><td class="n">1</td><td class="n">1</td></tr>`)
	assert.Contains(t, page, "loss: 1 of 3 calls lost data")
	assert.Less(t, strings.Index(page, `data-rule="loss-rule"`), strings.Index(page, `data-rule="plural-sqlite-only"`), "loss rules first")
	assert.Contains(t, page, "&lt;y&gt;", "answers are escaped")
	assert.NotContains(t, page, "shown (olmcat parity -o json", "every difference is listed")

	// A sample of the differences (parity.RuleSamples) is shown with every
	// rule's full count.
	res.RulesSeen = map[string]int{"loss-rule": 1, "plural-sqlite-only": 40}
	b.Reset()
	require.NoError(t, report.WriteParity(&b, res))
	page = b.String()
	assert.Contains(t, page, "Differences by rule (41)")
	assert.Contains(t, page, `<span class="badge">40</span>`)
	assert.Contains(t, page, "First 1 of 40 shown")
	assert.Equal(t, 1, strings.Count(page, "shown (olmcat parity -o json"), "only the sampled rule says so")
}

func TestGraphPage(t *testing.T) {
	cfg, err := declcfg.LoadDir(context.Background(), filepath.Join("..", "..", "..", "..", "declcfg", "graph", "testdata", "problems"))
	require.NoError(t, err)
	g, err := graph.Build(cfg)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, report.WriteGraphPage(&b, "graphs", g))
	page := b.String()
	assert.NotRegexp(t, noExternal, page)
	assert.Contains(t, page, `<details class="package" data-package="p" open>`)
	assert.Contains(t, page, "graph findings")
}
