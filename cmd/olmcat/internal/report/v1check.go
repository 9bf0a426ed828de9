package report

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/operator-catalog/olmcat/declcfg/v1check"
	"github.com/operator-catalog/olmcat/internal/quote"
)

// V1Check is what v1-check prints: the reports of every package of the
// catalogs, the catalogs that do not load, and the rules that fail a
// package (FailOn; none given: every blocker).
type V1Check struct {
	Catalogs   []string
	Reports    []*v1check.Report
	Unloadable []V1Unloadable
	FailOn     []v1check.Rule
}

// V1Unloadable is a catalog that does not load, with why.
type V1Unloadable struct {
	Catalog string `json:"catalog"`
	Error   string `json:"error"`
}

// Fails says whether report r fails the check: a finding of a FailOn
// rule, or (no FailOn) a blocker.
func (v V1Check) Fails(r *v1check.Report) bool {
	if len(v.FailOn) == 0 {
		return r.Status() == v1check.StatusBlocked
	}
	return r.Has(v.FailOn...)
}

// Failed says whether the check fails: a package fails, or a catalog does
// not load (when its rule fails packages).
func (v V1Check) Failed() bool {
	if len(v.Unloadable) > 0 && (len(v.FailOn) == 0 || slices.Contains(v.FailOn, v1check.RuleUnparsable)) {
		return true
	}
	return slices.ContainsFunc(v.Reports, v.Fails)
}

// totals counts the packages by status.
func (v V1Check) totals() map[v1check.Status]int {
	t := map[v1check.Status]int{v1check.StatusInstallable: 0, v1check.StatusBlocked: 0, v1check.StatusUnknown: 0}
	for _, r := range v.Reports {
		t[r.Status()]++
	}
	return t
}

// summary is the one-line verdict.
func (v V1Check) summary() string {
	t := v.totals()
	return fmt.Sprintf("%d package(s): %d installable, %d blocked, %d unknown", len(v.Reports),
		t[v1check.StatusInstallable], t[v1check.StatusBlocked], t[v1check.StatusUnknown])
}

// pickName is a pick's bundle, "-" for none.
func pickName(p *v1check.Pick) string {
	if p == nil {
		return "-"
	}
	return p.Bundle
}

// blockerNames lists the report's blocking rules, "-" for none.
func blockerNames(r *v1check.Report) string {
	var names []string
	for _, rule := range r.Blockers() {
		names = append(names, string(rule))
	}
	if len(names) == 0 {
		return "-"
	}
	return strings.Join(names, ",")
}

// findingLine is one finding as a line.
func findingLine(f v1check.Finding) string {
	s := fmt.Sprintf("%s [%s]: %s", f.Rule, f.Severity, f.Message)
	if f.Detail != "" {
		s += " (" + f.Detail + ")"
	}
	return s
}

// WriteV1CheckText writes the table (one row per package and catalog:
// package, OLM v1's pick, OLM v0's, status, blocking rules), then each
// package's findings and the rules' explanations, then the totals.
func WriteV1CheckText(w io.Writer, v V1Check) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	many := len(v.Catalogs) > 1
	head := "PACKAGE\tV1 PICK\tV0 PICK\tSTATUS\tBLOCKERS"
	if many {
		head = "CATALOG\t" + head
	}
	fmt.Fprintln(tw, head)
	for _, r := range v.Reports {
		row := fmt.Sprintf("%s\t%s\t%s\t%s\t%s", quote.Name(r.Package), quote.Name(pickName(r.V1Pick)), quote.Name(pickName(r.V0Pick)), r.Status(), blockerNames(r))
		if many {
			row = quote.Name(r.Catalog) + "\t" + row
		}
		fmt.Fprintln(tw, row)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var used []v1check.Rule
	for _, r := range v.Reports {
		if len(r.Findings) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s (%s):\n", quote.Name(r.Package), quote.Name(r.Catalog))
		for _, f := range r.Findings {
			fmt.Fprintf(w, "  %s\n", quote.Name(findingLine(f)))
			if !slices.Contains(used, f.Rule) {
				used = append(used, f.Rule)
			}
		}
	}
	for _, u := range v.Unloadable {
		fmt.Fprintf(w, "\ncatalog %s does not load: %s\n", quote.Name(u.Catalog), quote.Name(u.Error))
	}
	if len(used) > 0 {
		fmt.Fprintln(w, "\nrules:")
		for _, i := range v1check.Rules() {
			if slices.Contains(used, i.Rule) {
				fmt.Fprintf(w, "  %s (%s): %s [%s]\n", i.Rule, i.Severity, i.Why, i.Source)
			}
		}
	}
	_, err := fmt.Fprintf(w, "\n%s\n", v.summary())
	return err
}

// v1Package is a report as the JSON document holds it.
type v1Package struct {
	*v1check.Report
	Status v1check.Status `json:"status"`
	Fails  bool           `json:"fails"`
}

// WriteV1CheckJSON writes one JSON document: the catalogs, every
// package's report with its status and whether it fails, the catalogs
// that do not load, the totals and the rules.
func WriteV1CheckJSON(w io.Writer, v V1Check) error {
	doc := struct {
		Catalogs   []string               `json:"catalogs"`
		Packages   []v1Package            `json:"packages"`
		Unloadable []V1Unloadable         `json:"unloadable,omitempty"`
		Totals     map[v1check.Status]int `json:"totals"`
		Failed     bool                   `json:"failed"`
		Rules      []v1check.RuleInfo     `json:"rules"`
	}{Catalogs: v.Catalogs, Packages: []v1Package{}, Unloadable: v.Unloadable, Totals: v.totals(), Failed: v.Failed(), Rules: v1check.Rules()}
	for _, r := range v.Reports {
		doc.Packages = append(doc.Packages, v1Package{Report: r, Status: r.Status(), Fails: v.Fails(r)})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// WriteV1CheckJUnit writes JUnit XML: a suite per catalog, a case per
// package, failing when the package fails with its findings, its notes
// as the case's output; a catalog that does not load adds a failing
// "load" case.
func WriteV1CheckJUnit(w io.Writer, v V1Check) error {
	j := &junitWriter{w: w}
	j.begin("olmcat v1-check " + strings.Join(v.Catalogs, " "))
	for _, cat := range v.Catalogs {
		s := &junitSuite{Name: cat}
		for _, r := range v.Reports {
			if r.Catalog == cat {
				s.Cases = append(s.Cases, v1Case(v, r))
			}
		}
		for _, u := range v.Unloadable {
			if u.Catalog == cat {
				s.Cases = append(s.Cases, junitCase{Name: "load", Classname: cat,
					Failure: &junitFailure{Message: "the catalog does not load", Type: string(v1check.RuleUnparsable), Text: xmlSafe(u.Error + "\n")}})
			}
		}
		j.suite(s)
	}
	return j.end()
}

// v1Case is a package's test case.
func v1Case(v V1Check, r *v1check.Report) junitCase {
	tc := junitCase{Name: r.Package, Classname: r.Catalog, Assertions: count(len(r.Findings))}
	var lines []string
	for _, f := range r.Findings {
		lines = append(lines, findingLine(f))
	}
	if v.Fails(r) {
		tc.Failure = &junitFailure{Message: "OLM v1 does not install it: " + blockerNames(r), Type: string(r.Status()),
			Text: xmlSafe(strings.Join(lines, "\n") + "\n")}
	} else if len(lines) > 0 {
		tc.SystemOut = text(strings.Join(lines, "\n") + "\n")
	}
	return tc
}

// WriteV1CheckGitHub writes GitHub Actions workflow commands: an error per
// failing package, a warning per other package with an unknown, then the
// verdict (an error when the check fails, a notice when not).
func WriteV1CheckGitHub(w io.Writer, v V1Check) error {
	var b strings.Builder
	for _, r := range v.Reports {
		var lines []string
		for _, f := range r.Findings {
			if f.Severity != v1check.SeverityNote || v.Fails(r) && slices.Contains(v.FailOn, f.Rule) {
				lines = append(lines, findingLine(f))
			}
		}
		title := "v1-check " + r.Package
		switch {
		case v.Fails(r):
			b.WriteString(ghCommand("error", ghWhere{}, title, fmt.Sprintf("%s (%s): %s", r.Package, r.Catalog, strings.Join(lines, "\n"))))
		case r.Status() == v1check.StatusUnknown:
			b.WriteString(ghCommand("warning", ghWhere{}, title, fmt.Sprintf("%s (%s): %s", r.Package, r.Catalog, strings.Join(lines, "\n"))))
		}
	}
	for _, u := range v.Unloadable {
		b.WriteString(ghCommand("error", ghWhere{}, "v1-check "+u.Catalog, "catalog "+u.Catalog+" does not load: "+u.Error))
	}
	level := "notice"
	if v.Failed() {
		level = "error"
	}
	b.WriteString(ghCommand(level, ghWhere{}, "olmcat v1-check", v.summary()))
	_, err := io.WriteString(w, b.String())
	return err
}
