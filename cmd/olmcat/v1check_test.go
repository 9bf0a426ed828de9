package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	v1Index = "../../fixtures/legacy/opm-manifests/index.db"
	v1Data  = "../../declcfg/v1check/testdata/"
)

// TestV1CheckExitCodes: 0 when every package installs, 1 when one is
// blocked or has a finding of a --fail-on rule, 2 bad usage.
func TestV1CheckExitCodes(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad")
	require.NoError(t, os.Mkdir(bad, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bad, "catalog.json"), []byte(`{"schema":"olm.package","name":7}`), 0o644))
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // in stdout, or stderr for usage errors
	}{
		{"installable", []string{v1Data + "webhook"}, 0, "1 package(s): 1 installable, 0 blocked, 0 unknown"},
		{"blocked", []string{v1Index}, 1, "3 package(s): 1 installable, 2 blocked, 0 unknown"},
		{"fail on a note", []string{v1Data + "webhook", "--fail-on", "webhook"}, 1, "webhook [note]"},
		{"fail on another rule", []string{v1Index, "--fail-on", "apiservice, media-type"}, 0, "blocked"},
		{"unknown passes", []string{v1Data + "needs-csv"}, 0, "0 installable, 0 blocked, 1 unknown"},
		{"duplicate", []string{v1Data + "duplicate-a", v1Data + "duplicate-b"}, 1, "duplicate-package"},
		{"unloadable", []string{v1Data + "webhook", bad}, 1, "catalog " + bad + " does not load: "},
		{"unloadable not failing", []string{v1Data + "webhook", bad, "--fail-on", "dependency"}, 0, "does not load"},
		{"no catalog", nil, 2, "requires at least 1 arg"},
		{"bad output", []string{v1Index, "-o", "yaml"}, 2, `unknown output format "yaml"`},
		{"bad rule", []string{v1Index, "--fail-on", "nope"}, 2, `--fail-on: unknown rule "nope"`},
		{"missing", []string{filepath.Join(bad, "nope")}, 1, "nope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := runCLI(t, append([]string{"v1-check"}, tc.args...)...)
			assert.Equal(t, tc.code, code, "stdout: %s\nstderr: %s", out, stderr)
			assert.Contains(t, out+stderr, tc.want)
		})
	}
}

// TestV1CheckText: the table, a row per package, and the findings.
func TestV1CheckText(t *testing.T) {
	out, _, code := runCLI(t, "v1-check", v1Index)
	require.Equal(t, 1, code)
	lines := strings.Split(out, "\n")
	assert.Regexp(t, `^PACKAGE +V1 PICK +V0 PICK +STATUS +BLOCKERS$`, lines[0])
	assert.Regexp(t, `^etcd +etcdoperator.v0.9.2 +etcdoperator.v0.9.2 +blocked +dependency,install-mode$`, lines[1])
	assert.Regexp(t, `^strimzi-kafka-operator +strimzi-cluster-operator.v0.12.2 +strimzi-cluster-operator.v0.11.1 +installable +-$`, lines[3])
	assert.Contains(t, out, `pick-differs [note]: OLM v1 installs strimzi-cluster-operator.v0.12.2, OLM v0 the head of channel stable, strimzi-cluster-operator.v0.11.1`)
	assert.Contains(t, out, "  dependency (blocker): operator-controller does not resolve dependencies")

	out, _, _ = runCLI(t, "v1-check", v1Data+"duplicate-a", v1Data+"duplicate-b")
	assert.Regexp(t, `(?m)^CATALOG +PACKAGE +V1 PICK`, out)
}

// TestV1CheckJSON: one document with every package's report, status and
// verdict, the totals and the rules.
func TestV1CheckJSON(t *testing.T) {
	out, _, code := runCLI(t, "v1-check", v1Index, "-o", "json")
	require.Equal(t, 1, code)
	var doc struct {
		Catalogs []string `json:"catalogs"`
		Packages []struct {
			Package string `json:"package"`
			Status  string `json:"status"`
			Fails   bool   `json:"fails"`
			V1Pick  struct {
				Bundle, Version string
			} `json:"v1Pick"`
			Findings []struct{ Rule, Severity, Message string } `json:"findings"`
		} `json:"packages"`
		Totals map[string]int   `json:"totals"`
		Failed bool             `json:"failed"`
		Rules  []map[string]any `json:"rules"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, []string{v1Index}, doc.Catalogs)
	require.Len(t, doc.Packages, 3)
	assert.Equal(t, "etcd", doc.Packages[0].Package)
	assert.Equal(t, "blocked", doc.Packages[0].Status)
	assert.True(t, doc.Packages[0].Fails)
	assert.Equal(t, "0.9.2", doc.Packages[0].V1Pick.Version)
	assert.Equal(t, "dependency", doc.Packages[0].Findings[0].Rule)
	assert.Equal(t, map[string]int{"installable": 1, "blocked": 2, "unknown": 0}, doc.Totals)
	assert.True(t, doc.Failed)
	assert.NotEmpty(t, doc.Rules)
}

// TestV1CheckJUnit: a suite per catalog, a case per package, the failing
// ones failed; valid against the JUnit schema.
func TestV1CheckJUnit(t *testing.T) {
	out, _, code := runCLI(t, "v1-check", v1Index, "-o", "junit")
	require.Equal(t, 1, code)
	var doc struct {
		Suites []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Cases    []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal([]byte(out), &doc))
	require.Len(t, doc.Suites, 1)
	assert.Equal(t, 3, doc.Suites[0].Tests)
	assert.Equal(t, 2, doc.Suites[0].Failures)
	assert.Equal(t, "OLM v1 does not install it: dependency,install-mode", doc.Suites[0].Cases[0].Failure.Message)
	assert.Nil(t, doc.Suites[0].Cases[2].Failure)
	assert.Empty(t, junitSchemaErrors(t, out))
}

// TestV1CheckGitHub: an error per failing package, then the verdict.
func TestV1CheckGitHub(t *testing.T) {
	out, _, code := runCLI(t, "v1-check", v1Index, "-o", "github")
	require.Equal(t, 1, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3)
	assert.True(t, strings.HasPrefix(lines[0], "::error title=v1-check etcd::etcd ("), lines[0])
	assert.Contains(t, lines[0], "%0Ainstall-mode [blocker]")
	assert.Equal(t, "::error title=olmcat v1-check::3 package(s): 1 installable, 2 blocked, 0 unknown", lines[2])

	out, _, code = runCLI(t, "v1-check", v1Data+"webhook", "-o", "github")
	require.Equal(t, 0, code)
	assert.Equal(t, "::notice title=olmcat v1-check::1 package(s): 1 installable, 0 blocked, 0 unknown\n", out)
}

// TestV1CheckMigrateReport: migrate --v1-check prints the totals and adds
// the v1-check section to --report and --report-html.
func TestV1CheckMigrateReport(t *testing.T) {
	dir := t.TempDir()
	jsonReport, page := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.html")
	_, stderr, code := runCLI(t, "migrate", v1Index, filepath.Join(dir, "out"), "--v1-check", "--report", jsonReport, "--report-html", page)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "OLM v1 (v1-check): 3 package(s): 1 installable, 2 blocked, 0 unknown\n")
	data, err := os.ReadFile(jsonReport)
	require.NoError(t, err)
	var rep struct {
		V1Check []struct {
			Package  string
			Findings []struct{ Rule string }
		} `json:"v1Check"`
	}
	require.NoError(t, json.Unmarshal(data, &rep))
	require.Len(t, rep.V1Check, 3)
	assert.Equal(t, "etcd", rep.V1Check[0].Package)
	assert.Equal(t, "dependency", rep.V1Check[0].Findings[0].Rule)
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(html), `<section id="v1check"><h2>OLM v1 (3 package(s): 1 installable, 2 blocked, 0 unknown)</h2>`)
	assert.Contains(t, string(html), `<tr class="v1 problem" data-package="etcd" data-status="blocked"><td>etcd</td><td>etcdoperator.v0.9.2</td>`)
	assert.Contains(t, string(html), `<tr class="v1rule" data-rule="dependency">`)
	assert.Contains(t, string(html), `<section id="packages">`, "the graphs are still drawn")

	_, stderr, code = runCLI(t, "migrate", v1Index, filepath.Join(dir, "out2"), "--report", jsonReport, "--force")
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stderr, "v1-check")
	data, err = os.ReadFile(jsonReport)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "v1Check")
}
