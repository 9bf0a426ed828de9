package report

import (
	"fmt"
	"io"

	"github.com/operator-catalog/olmcat/declcfg/v1check"
	"github.com/operator-catalog/olmcat/migrate"
)

// WriteMigrationV1Summary writes, after a migration's summary, the line of
// totals of its v1-check (migrate --v1-check).
func WriteMigrationV1Summary(w io.Writer, rep *migrate.Report) {
	v := V1Check{Catalogs: []string{rep.Input}, Reports: rep.V1Check}
	fmt.Fprintf(w, "OLM v1 (v1-check): %s\n", v.summary())
}

// writeMigrationV1 writes the v1-check section of a migration's page: a
// row per package (OLM v1's pick, OLM v0's, the status, the blocking
// rules) and a collapsed list of its findings, then the rules met.
func writeMigrationV1(w io.Writer, rep *migrate.Report) {
	if rep.V1Check == nil {
		return
	}
	v := V1Check{Catalogs: []string{rep.Input}, Reports: rep.V1Check}
	fmt.Fprintf(w, "<section id=\"v1check\"><h2>OLM v1 (%s)</h2>\n", esc(v.summary()))
	fmt.Fprint(w, "<p>What operator-controller v1.11.0 does with each converted package for a ClusterExtension naming only the package (<code>olmcat v1-check</code>; MIGRATION.md, &ldquo;Moving on to OLM v1&rdquo;).</p>\n")
	fmt.Fprint(w, "<table>\n<tr><th>package</th><th>OLM v1 picks</th><th>OLM v0 picks</th><th>status</th><th>blockers</th><th>findings</th></tr>\n")
	var used []v1check.Rule
	for _, r := range rep.V1Check {
		class := map[v1check.Status]string{v1check.StatusBlocked: "problem", v1check.StatusUnknown: "note"}[r.Status()]
		fmt.Fprintf(w, "<tr class=\"v1 %s\" data-package=\"%s\" data-status=\"%s\"><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>",
			class, esc(r.Package), r.Status(), esc(r.Package), esc(pickName(r.V1Pick)), esc(pickName(r.V0Pick)), r.Status(), esc(blockerNames(r)))
		if len(r.Findings) > 0 {
			fmt.Fprintf(w, "<details><summary>%d</summary><ul>", len(r.Findings))
			for _, f := range r.Findings {
				fmt.Fprintf(w, "<li data-rule=\"%s\">%s</li>", esc(string(f.Rule)), esc(findingLine(f)))
				if !containsRule(used, f.Rule) {
					used = append(used, f.Rule)
				}
			}
			fmt.Fprint(w, "</ul></details>")
		}
		fmt.Fprint(w, "</td></tr>\n")
	}
	fmt.Fprint(w, "</table>\n")
	if len(used) > 0 {
		fmt.Fprint(w, "<table>\n<tr><th>rule</th><th>severity</th><th>why</th><th>source</th></tr>\n")
		for _, i := range v1check.Rules() {
			if containsRule(used, i.Rule) {
				fmt.Fprintf(w, "<tr class=\"v1rule\" data-rule=\"%s\"><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
					esc(string(i.Rule)), esc(string(i.Rule)), esc(string(i.Severity)), esc(i.Why), esc(i.Source))
			}
		}
		fmt.Fprint(w, "</table>\n")
	}
	fmt.Fprint(w, "</section>\n")
}

// containsRule says whether rules holds r.
func containsRule(rules []v1check.Rule, r v1check.Rule) bool {
	for _, x := range rules {
		if x == r {
			return true
		}
	}
	return false
}
