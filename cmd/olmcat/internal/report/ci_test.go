package report_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/cmd/olmcat/internal/report"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/model"
	"github.com/operator-catalog/olmcat/registry/parity"
)

// xmllint returns Debian's xmllint (libxml2-utils, installed by make
// test), skipping the test without it unless OLMCAT_REQUIRE_XMLLINT is set.
func xmllint(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("OLMCAT_REQUIRE_XMLLINT") != "" {
			require.NoError(t, err, "xmllint (make xmllint installs it)")
		}
		t.Skip("no xmllint (make xmllint installs it)")
	}
	return p
}

// schemaErrors validates doc with xmllint against testdata/junit.xsd and
// returns its complaints, "" when valid.
func schemaErrors(t *testing.T, doc []byte) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "report.xml")
	require.NoError(t, os.WriteFile(f, doc, 0o644))
	out, err := exec.Command(xmllint(t), "--noout", "--schema", filepath.Join("testdata", "junit.xsd"), f).CombinedOutput()
	if err != nil {
		return string(out)
	}
	return ""
}

// The schema test can fail: a test case without a name, or totals that
// are not numbers, are refused.
func TestJUnitSchemaRefusesInvalidReports(t *testing.T) {
	assert.Empty(t, schemaErrors(t, []byte(`<testsuites><testsuite name="p" tests="1"><testcase name="c"><failure message="m" type="loss">x</failure></testcase></testsuite></testsuites>`)))
	assert.NotEmpty(t, schemaErrors(t, []byte(`<testsuites><testsuite name="p" tests="1"><testcase classname="c"/></testsuite></testsuites>`)))
	assert.NotEmpty(t, schemaErrors(t, []byte(`<testsuites><testsuite name="p" tests="many"/></testsuites>`)))
	assert.NotEmpty(t, schemaErrors(t, []byte(`<testsuites><testsuite tests="1"/></testsuites>`)))
}

// The parsed JUnit document.
type junitDoc struct {
	Suites []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Cases    []struct {
			Name       string `xml:"name,attr"`
			Classname  string `xml:"classname,attr"`
			Assertions *int   `xml:"assertions,attr"`
			Failure    *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			SystemOut string `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func parseJUnit(t *testing.T, doc []byte) junitDoc {
	t.Helper()
	var d junitDoc
	require.NoError(t, xml.Unmarshal(doc, &d))
	for _, s := range d.Suites {
		failures := 0
		for _, c := range s.Cases {
			if c.Failure != nil {
				failures++
			}
		}
		assert.Equal(t, len(s.Cases), s.Tests, s.Name)
		assert.Equal(t, failures, s.Failures, s.Name)
	}
	return d
}

// textRow is one row of the text summary's table: calls, identical,
// benign, losses.
var textRow = regexp.MustCompile(`(?m)^(\w+) +(\d+) +(\d+) +(\d+) +(\d+)$`)

// textTable reads the text summary's table: per RPC (and TOTAL) its
// calls and losses.
func textTable(t *testing.T, text string) map[string][2]int {
	t.Helper()
	out := map[string][2]int{}
	for _, m := range textRow.FindAllStringSubmatch(text, -1) {
		calls, _ := strconv.Atoi(m[2])
		losses, _ := strconv.Atoi(m[5])
		out[m[1]] = [2]int{calls, losses}
	}
	require.Contains(t, out, "TOTAL")
	return out
}

var lostCalls = regexp.MustCompile(`^(\d+) of (\d+) call\(s\) lost data$`)

// The JUnit report of a parity check is valid against the common JUnit
// schema and counts what the text summary counts: per RPC, the calls
// (test cases' assertions) and the calls that lost data (failures'
// messages); every upgrade graph difference is a failure. edge-*
// fixtures lose data; small-fbb does not.
func TestParityJUnitValidatesAndCountsAsTheText(t *testing.T) {
	for _, fixture := range []string{"edge-substitutes", "edge-before-substitutes", "small-fbb"} {
		for _, strict := range []bool{false, true} {
			t.Run(fixture+"/strict="+strconv.FormatBool(strict), func(t *testing.T) {
				var doc bytes.Buffer
				res, err := parity.Check(context.Background(), fixtureDB(fixture), fixtureOPM(fixture),
					parity.WithReport(report.ParityJUnit(&doc, strict)), parity.WithMaxDiffs(0))
				require.NoError(t, err)
				assert.Empty(t, schemaErrors(t, doc.Bytes()))
				var text strings.Builder
				require.NoError(t, report.WriteParityText(&text, res, 0, strict))
				want := textTable(t, text.String())

				got := map[string][2]int{}
				failed, graphLosses := 0, 0
				for _, s := range parseJUnit(t, doc.Bytes()).Suites {
					for _, c := range s.Cases {
						if c.Failure != nil {
							failed++
						}
						if c.Name == "upgrade graph" {
							if c.Failure != nil {
								graphLosses += strings.Count(c.Failure.Text, "\n")
							}
							continue
						}
						if c.Assertions == nil {
							continue // a package's share of ListBundles
						}
						g := got[c.Name]
						g[0] += *c.Assertions
						if c.Failure != nil && c.Failure.Type == "loss" {
							m := lostCalls.FindStringSubmatch(c.Failure.Message)
							require.NotNil(t, m, c.Failure.Message)
							n, _ := strconv.Atoi(m[1])
							g[1] += n
						}
						got[c.Name] = g
					}
				}
				var total [2]int
				for _, st := range res.Stats {
					assert.Equal(t, want[st.RPC], got[st.RPC], st.RPC)
					total[0], total[1] = total[0]+got[st.RPC][0], total[1]+got[st.RPC][1]
				}
				assert.Equal(t, want["TOTAL"], total)
				assert.Equal(t, len(res.Graph), graphLosses)
				assert.Equal(t, res.OK(strict), failed == 0, "failures iff the check fails")
			})
		}
	}
}

// The JUnit report is written as the check runs: every package's suite
// is out before the check ends.
func TestParityJUnitIsWrittenAsTheCheckRuns(t *testing.T) {
	var out bytes.Buffer
	snap := &endSnapshot{buf: &out}
	_, err := parity.Check(context.Background(), fixtureDB("edge-substitutes"), fixtureOPM("edge-substitutes"),
		parity.WithReport(snap), parity.WithReport(report.ParityJUnit(&out, false)))
	require.NoError(t, err)
	assert.Contains(t, string(snap.seen), `<testsuite name="etcd"`)
	assert.Contains(t, string(snap.seen), `<testsuite name="prometheus"`)
	assert.NotContains(t, string(snap.seen), "(catalog-wide calls)", "the catalog-wide suite comes at the end")
	assert.True(t, strings.HasSuffix(out.String(), "</testsuites>\n"))
}

// golden compares got with testdata/name line by line; OLMCAT_UPDATE=1
// rewrites it.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if os.Getenv("OLMCAT_UPDATE") != "" {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, strings.Split(string(want), "\n"), strings.Split(got, "\n"))
}

// annotation is one "::level props::message" line.
var annotation = regexp.MustCompile(`^::(error|warning|notice)(?: ([^:]*))?::(.*)$`)

// checkAnnotations checks that every line is a workflow command and that
// each file and line it names is where a blob starts.
func checkAnnotations(t *testing.T, out string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		m := annotation.FindStringSubmatch(line)
		require.NotNil(t, m, line)
		props := map[string]string{}
		for _, p := range strings.Split(m[2], ",") {
			if k, v, ok := strings.Cut(p, "="); ok {
				props[k] = v
			}
		}
		if props["file"] == "" {
			continue
		}
		data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", filepath.FromSlash(props["file"])))
		require.NoError(t, err, line)
		n, err := strconv.Atoi(props["line"])
		require.NoError(t, err, line)
		at := strings.TrimSpace(strings.Split(string(data), "\n")[n-1])
		assert.True(t, strings.HasPrefix(at, "{") || strings.HasPrefix(at, "schema:"), "%s: line %d is %q, not a blob's start", props["file"], n, at)
	}
}

// The GitHub annotations of a check with known losses, line by line: an
// error per loss, on the line of the blob it is about (the bundle, else
// the channel, else the package) when the right side's files hold it,
// then the verdict.
func TestParityGitHubAnnotations(t *testing.T) {
	for _, fixture := range []string{"edge-substitutes", "edge-before-substitutes"} {
		t.Run(fixture, func(t *testing.T) {
			loc, err := declcfg.NewLocator(context.Background(), fixtureOPM(fixture))
			require.NoError(t, err)
			cat := &report.Catalog{Dir: "fixtures/legacy/" + fixture + "/opm-migrate", Locator: loc}
			var out bytes.Buffer
			res, err := parity.Check(context.Background(), fixtureDB(fixture), fixtureOPM(fixture),
				parity.WithReport(report.ParityGitHub(&out, false, cat)), parity.WithMaxDiffs(0))
			require.NoError(t, err)
			require.False(t, res.OK(false), "the fixture has known losses")
			golden(t, "parity-"+fixture+".github", out.String())
			checkAnnotations(t, out.String())
			assert.Equal(t, res.DiffCounts[parity.Loss]+len(res.Graph)+1, strings.Count(out.String(), "::error"), "an error per loss, and the verdict")
		})
	}
}

// The JUnit report of validate: valid against the schema, a suite per
// package whose blobs are counted as the text summary counts them, and
// every problem in a failure.
func TestValidateJUnit(t *testing.T) {
	dir := filepath.Join("testdata", "invalid")
	var doc bytes.Buffer
	v := validateWith(t, report.ValidateJUnit(&doc), dir)
	assert.Empty(t, schemaErrors(t, doc.Bytes()))
	d := parseJUnit(t, doc.Bytes())
	var names []string
	counts := map[string]int{}
	problems := 0
	for _, s := range d.Suites {
		names = append(names, s.Name)
		for _, c := range s.Cases {
			counts[c.Name] += *c.Assertions
			if c.Failure != nil {
				n, err := strconv.Atoi(strings.Fields(c.Failure.Message)[0])
				require.NoError(t, err)
				problems += n
			}
		}
	}
	assert.Equal(t, []string{"a", "b", "c"}, names)
	assert.Equal(t, v.Packages, counts[declcfg.SchemaPackage])
	assert.Equal(t, v.Channels, counts[declcfg.SchemaChannel])
	assert.Equal(t, v.Bundles, counts[declcfg.SchemaBundle])
	assert.Equal(t, len(v.Problems), problems)
	assert.Contains(t, doc.String(), `entry "b.v1.0.0" replaces "b.v0.9.0", which is not in the channel`, "warnings in the suite's output")

	// A catalog that does not load: one failing "load" case.
	broken := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(broken, "x.json"), []byte(`{"schema":`), 0o644))
	doc.Reset()
	validateWith(t, report.ValidateJUnit(&doc), broken)
	assert.Empty(t, schemaErrors(t, doc.Bytes()))
	d = parseJUnit(t, doc.Bytes())
	require.Len(t, d.Suites, 1)
	assert.Equal(t, "(catalog)", d.Suites[0].Name)
	assert.Equal(t, 1, d.Suites[0].Failures)
}

// The GitHub annotations of validate, line by line: YAML and JSON blobs
// located on their first line.
func TestValidateGitHub(t *testing.T) {
	var out bytes.Buffer
	validateWith(t, report.ValidateGitHub(&out, filepath.Join("testdata", "invalid"), "cmd/olmcat/internal/report/testdata/invalid"), filepath.Join("testdata", "invalid"))
	golden(t, "validate-invalid.github", out.String())
	checkAnnotations(t, out.String())
}

// validateWith runs validate's checks of dir through w, as the command
// does, and returns the verdict.
func validateWith(t *testing.T, w report.ValidateWriter, dir string) report.Validation {
	t.Helper()
	w.Start(dir)
	res, err := model.ValidateDir(context.Background(), dir, model.WithWarnings(w.Warning), model.WithPackageChecks(w.Package))
	v := report.ValidationOf(res, err)
	require.NoError(t, w.Finish(dir, v))
	return v
}

// Catalog strings reach the report as they are: control characters and
// "]]>" still make a valid document.
func TestJUnitHoldsAnyString(t *testing.T) {
	var doc bytes.Buffer
	w := report.ValidateJUnit(&doc)
	w.Start("dir\x01")
	w.Warning(model.Problem{Message: "warned \x02 ]]> <b>"})
	w.Package(model.PackageCheck{Name: "p\x00", Bundles: 1, Problems: []model.Problem{{Schema: declcfg.SchemaBundle, Message: "bad \x1b value ]]> \xff"}}})
	require.NoError(t, w.Finish("dir", report.Validation{Problems: make([]model.Problem, 1)}))
	assert.Empty(t, schemaErrors(t, doc.Bytes()))
	d := parseJUnit(t, doc.Bytes())
	require.Len(t, d.Suites, 1)
	assert.Equal(t, "olm.bundle: bad \uFFFD value ]]> \uFFFD\n", d.Suites[0].Cases[2].Failure.Text)
}
