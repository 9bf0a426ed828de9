package report

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/operator-catalog/olmcat/legacy"
	"github.com/operator-catalog/olmcat/migrate"
)

// TestMigrationSummaryQuotesNames: the migration summary quotes the
// package, channel and bundle names of the legacy database (and the
// paths) that hold control characters or newlines.
func TestMigrationSummaryQuotesNames(t *testing.T) {
	const hostile = "b\x1b[31mRED\r\nnext: forged"
	rep := &migrate.Report{
		Input: "in" + hostile + ".db", Output: "out",
		Repairs: []legacy.Repair{{Kind: "missing-manifests", Table: "operatorbundle", Package: "p" + hostile, Bundle: hostile, Detail: "kept"}},
		Drops:   []migrate.Finding{{Kind: "invalid-bundle", Package: "p", Channel: "c" + hostile, Bundle: hostile, Detail: "dropped"}},
	}
	for _, ok := range []bool{true, false} {
		var b strings.Builder
		WriteMigrationSummary(&b, rep, ok)
		out := b.String()
		assert.Contains(t, out, `"b\x1b[31mRED\r\nnext: forged"`)
		assert.NotContains(t, out, "\x1b")
		assert.NotContains(t, out, "\r")
		for _, l := range strings.Split(out, "\n") {
			assert.False(t, strings.HasPrefix(l, "next: forged"), "a forged line: %q", l)
		}
	}
}
