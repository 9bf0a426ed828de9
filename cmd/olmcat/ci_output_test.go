package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// parity and validate write the CI formats on stdout, with the text
// output's exit status.
func TestCIOutputs(t *testing.T) {
	fixture := func(name, what string) string { return filepath.Join("..", "..", "fixtures", "legacy", name, what) }
	edgeDB, edgeDir := fixture("edge-substitutes", "index.db"), fixture("edge-substitutes", "opm-migrate")
	out, stderr, code := runCLI(t, "parity", "--no-deprecation-warning", edgeDB, edgeDir, "-o", "github")
	assert.Equal(t, exitInvalid, code, stderr)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for _, l := range lines {
		assert.True(t, strings.HasPrefix(l, "::error "), l)
	}
	assert.Contains(t, lines[0], "file="+filepath.ToSlash(filepath.Join(edgeDir, "etcd", "catalog.json"))+",line=")
	assert.Equal(t, "::error title=parity::LOSS: 10 of 87 calls lost data; 0 upgrade graph difference(s)", lines[len(lines)-1])

	out, stderr, code = runCLI(t, "parity", "--no-deprecation-warning", edgeDB, edgeDir, "-o", "junit")
	assert.Equal(t, exitInvalid, code, stderr)
	assert.True(t, strings.HasPrefix(out, "<?xml"), out)
	assert.True(t, strings.HasSuffix(out, "</testsuites>\n"))

	_, stderr, code = runCLI(t, "parity", edgeDB, edgeDir, "-o", "xml")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "want text, json, junit or github")

	invalid := filepath.Join("internal", "report", "testdata", "invalid")
	out, _, code = runCLI(t, "validate", invalid, "-o", "junit")
	assert.Equal(t, exitInvalid, code)
	assert.Equal(t, 3, strings.Count(out, "<failure "), out)
	out, _, code = runCLI(t, "validate", invalid, "-o", "github")
	assert.Equal(t, exitInvalid, code)
	assert.Contains(t, out, "::error file="+filepath.ToSlash(filepath.Join(invalid, "c", "catalog.json"))+",line=15,title=validate::")
}
