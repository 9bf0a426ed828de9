package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadmeAnswersNewUsers: the README says how to get the binary, what
// the first runs cost, how to run the set-up command again, the cold and
// steady serve memory, and lists the flags that resolve a failed migration.
func TestReadmeAnswersNewUsers(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	readme := string(data)
	for _, want := range []string{
		"go install ./cmd/olmcat", "make build", "olmcat version",
		"about two minutes", "first `make\ntest`",
		"add `--force` or name another output",
		"VmHWM", "steady",
		"--drop-invalid-bundles", "--drop-invalid-related-images",
		"--left-kind",
	} {
		assert.Contains(t, readme, want)
	}
}
