package report_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/operator-catalog/olmcat/cmd/olmcat/internal/report"
	"github.com/operator-catalog/olmcat/migrate"
)

// The libraries name no flag; the CLI's messages still do.
func TestHintsNameTheFlags(t *testing.T) {
	assert.Equal(t, "plain", report.ProblemsText(errors.New("plain")))
	assert.Equal(t, "pass --keep-deprecated to keep deprecated bundles (listed in an olm.deprecations blob)", report.MigrationHint(migrate.DropDeprecated))
	assert.Equal(t, "use WithKeepDeprecated to keep deprecated bundles (listed in an olm.deprecations blob)", migrate.Hint(migrate.DropDeprecated))

	p := migrate.Finding{Kind: migrate.ProblemInvalidImage, Detail: "bad", Hint: migrate.Hint(migrate.ProblemInvalidImage)}
	rep := &migrate.Report{Problems: []migrate.Finding{p}, Drops: []migrate.Finding{{Kind: migrate.DropDeprecated, Hint: migrate.Hint(migrate.DropDeprecated)}}}
	pe := &migrate.ProblemsError{Problems: []migrate.Finding{p}}
	report.NameRemedies(rep, pe)
	err := fmt.Errorf("render x: %w", pe) // as the CLI wraps it, after naming
	assert.Contains(t, err.Error(), "hint (invalid-image): pass --drop-invalid-bundles to leave the bundle out")
	assert.Equal(t, report.MigrationHint(migrate.DropDeprecated), rep.Drops[0].Hint)

	// Wrapped before its hints were named: the CLI's text names the flags.
	late := fmt.Errorf("verify: migrate: %w", &migrate.ProblemsError{Problems: []migrate.Finding{{Kind: migrate.ProblemEmptyChannel, Detail: "empty", Hint: migrate.Hint(migrate.ProblemEmptyChannel)}}})
	assert.Contains(t, late.Error(), "use WithKeepDeprecated")
	assert.Contains(t, report.ProblemsText(late), "verify: migrate: 1 problem(s) would make the catalog unservable")
	assert.Contains(t, report.ProblemsText(late), "hint (empty-channel): the channel has no bundle left; pass --keep-deprecated if its bundles were deprecated")
	assert.Equal(t, report.MigrationHint(migrate.ProblemInvalidImage), rep.Problems[0].Hint)
}
