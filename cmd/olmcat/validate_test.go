package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// warningBlobs is a catalog of n packages whose channel entry skips two
// bundles absent from the channel (two warnings each); package bad, if
// any, names a default channel it does not have.
func warningBlobs(n int, bad string) string {
	var b strings.Builder
	for i := range n {
		p := fmt.Sprintf("pkg-%03d", i)
		def := "stable"
		if p == bad {
			def = "missing"
		}
		fmt.Fprintf(&b, `{"schema":"olm.package","name":%[1]q,"defaultChannel":%[2]q}
{"schema":"olm.channel","package":%[1]q,"name":"stable","entries":[{"name":"%[1]s.v1","skips":["gone-a","gone-b"]}]}
{"schema":"olm.bundle","package":%[1]q,"name":"%[1]s.v1","image":"img/%[1]s:1","properties":[{"type":"olm.package","value":{"packageName":%[1]q,"version":"1.0.0"}}]}
`, p, def)
	}
	return b.String()
}

// validateJSONOut is the -o json report as a machine reads it.
type validateJSONOut struct {
	Dir      string `json:"dir"`
	Valid    bool   `json:"valid"`
	Packages int    `json:"packages"`
	Bundles  int    `json:"bundles"`
	Warnings []struct {
		File, Package, Name, Message string
	} `json:"warnings"`
	Problems []struct {
		Package, Message string
	} `json:"problems"`
}

// TestValidateReportsEveryWarning: the warnings validate streams are all
// printed, on stderr in text mode (one a line, in package order) and in
// "warnings" with -o json, which stays one JSON document indented as
// encoding/json indents it.
func TestValidateReportsEveryWarning(t *testing.T) {
	const n = 120
	dir := writeCatalogFile(t, warningBlobs(n, ""))
	stdout, stderr, code := runCLI(t, "validate", dir)
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stdout, "nothing on stdout when valid, as opm")
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	require.Len(t, lines, 2*n+1)
	assert.Equal(t, fmt.Sprintf("OK: %s: %d packages, %d channels, %d bundles", dir, n, n, n), lines[2*n])
	assert.Equal(t, `warning: catalog.json#1: olm.channel pkg-000/stable: entry "pkg-000.v1" skips "gone-a", which is not in the channel`, lines[0])
	assert.Equal(t, `warning: catalog.json#358: olm.channel pkg-119/stable: entry "pkg-119.v1" skips "gone-b", which is not in the channel`, lines[2*n-1])

	stdout, _, code = runCLI(t, "validate", dir, "-o", "json")
	require.Equal(t, 0, code)
	var rep validateJSONOut
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
	assert.True(t, rep.Valid)
	assert.Equal(t, dir, rep.Dir)
	assert.Equal(t, n, rep.Packages)
	require.Len(t, rep.Warnings, 2*n)
	assert.Equal(t, "pkg-119", rep.Warnings[2*n-1].Package)
	assert.NotNil(t, rep.Problems)
	assertIndented(t, stdout)
}

// TestValidateJSONOfAnInvalidCatalog: the problems are all there, and
// the warnings of the packages that passed their checks.
func TestValidateJSONOfAnInvalidCatalog(t *testing.T) {
	dir := writeCatalogFile(t, warningBlobs(5, "pkg-003"))
	stdout, stderr, code := runCLI(t, "validate", dir, "-o", "json")
	require.Equal(t, 1, code, stderr)
	var rep validateJSONOut
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
	assert.False(t, rep.Valid)
	require.Len(t, rep.Problems, 1)
	assert.Equal(t, "pkg-003", rep.Problems[0].Package)
	assert.Len(t, rep.Warnings, 8)
	assertIndented(t, stdout)

	// No warning at all: an empty list, as before.
	stdout, _, code = runCLI(t, "validate", writeCatalogFile(t, strings.ReplaceAll(warningBlobs(1, ""), `,"skips":["gone-a","gone-b"]`, "")), "-o", "json")
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, "\"warnings\": [],\n  \"valid\": true,")
	assertIndented(t, stdout)
}

// assertIndented checks out is one JSON value as json.Indent with two
// spaces writes it, followed by a newline.
func assertIndented(t *testing.T, out string) {
	t.Helper()
	var compact, indented bytes.Buffer
	require.NoError(t, json.Compact(&compact, []byte(out)))
	require.NoError(t, json.Indent(&indented, compact.Bytes(), "", "  "))
	assert.Equal(t, indented.String()+"\n", out)
}
