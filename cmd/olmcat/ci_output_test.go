package main

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// TestCIReportsWhenASideFailsToLoad: when a side (or validate's catalog)
// does not load, -o junit still writes a report that the JUnit schema
// accepts, with an <error> case carrying the message, and -o github an
// ::error line; the exit status is that of the text output.
func TestCIReportsWhenASideFailsToLoad(t *testing.T) {
	db := filepath.Join(legacyFixtures, "small-fbb", "index.db")
	invalid := filepath.Join("internal", "report", "testdata", "invalid")
	missing := filepath.Join(t.TempDir(), "missing")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"parity, invalid right side", []string{"parity", "--no-deprecation-warning", db, invalid}, "invalid catalog: 3 problems"},
		{"parity, missing left side", []string{"parity", missing, invalid}, missing},
		{"validate, missing catalog", []string{"validate", missing}, missing + " does not exist"},
		{"validate, sqlite index", []string{"validate", db}, "is a legacy sqlite index"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := runCLI(t, append(tc.args, "-o", "junit")...)
			assert.Equal(t, exitInvalid, code, stderr)
			assert.Empty(t, junitSchemaErrors(t, out), out)
			var doc struct {
				Suites []struct {
					Errors int `xml:"errors,attr"`
					Cases  []struct {
						Error *struct {
							Message string `xml:"message,attr"`
							Text    string `xml:",chardata"`
						} `xml:"error"`
					} `xml:"testcase"`
				} `xml:"testsuite"`
			}
			require.NoError(t, xml.Unmarshal([]byte(out), &doc), out)
			require.NotEmpty(t, doc.Suites, out)
			last := doc.Suites[len(doc.Suites)-1]
			assert.Equal(t, 1, last.Errors)
			require.Len(t, last.Cases, 1)
			require.NotNil(t, last.Cases[0].Error, out)
			assert.Contains(t, last.Cases[0].Error.Text, tc.want)

			out, stderr, code = runCLI(t, append(tc.args, "-o", "github")...)
			assert.Equal(t, exitInvalid, code, stderr)
			assert.True(t, strings.HasPrefix(out, "::error title="), out)
			assert.Contains(t, out, tc.want)
		})
	}
}

// junitSchemaErrors validates doc with xmllint against the JUnit schema
// the report package tests with, "" when valid; without xmllint the test
// is skipped unless OLMCAT_REQUIRE_XMLLINT is set.
func junitSchemaErrors(t *testing.T, doc string) string {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		require.Empty(t, os.Getenv("OLMCAT_REQUIRE_XMLLINT"), "xmllint (make xmllint installs it)")
		t.Skip("no xmllint (make xmllint installs it)")
	}
	f := filepath.Join(t.TempDir(), "report.xml")
	require.NoError(t, os.WriteFile(f, []byte(doc), 0o644))
	out, err := exec.Command(xmllint, "--noout", "--schema", filepath.Join("internal", "report", "testdata", "junit.xsd"), f).CombinedOutput()
	if err != nil {
		return string(out)
	}
	return ""
}
