package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/operator-catalog/olmcat/internal/pathcheck"
	"github.com/operator-catalog/olmcat/migrate"
)

func TestErrorText(t *testing.T) {
	exists := fmt.Errorf("migrate: %w", pathcheck.Exists("output directory %s exists and is not empty", "out"))
	assert.Equal(t, "migrate: output directory out exists and is not empty (use --force to replace it)", errorText(exists))
	assert.Equal(t, "plain", errorText(errors.New("plain")))
	named := pathcheck.Exists("report file r: exists (pass --force to replace it)")
	assert.Equal(t, named.Error(), errorText(named), "the CLI's own message names the flag already")

	late := fmt.Errorf("verify: migrate: %w", &migrate.ProblemsError{Problems: []migrate.Finding{{Kind: migrate.ProblemEmptyChannel, Detail: "empty", Hint: migrate.Hint(migrate.ProblemEmptyChannel)}}})
	assert.Contains(t, errorText(late), "pass --keep-deprecated if its bundles were deprecated", "the full build names migrate's flags")
}
