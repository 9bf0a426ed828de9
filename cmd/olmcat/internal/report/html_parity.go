package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/operator-catalog/olmcat/registry/parity"
)

// WriteParity writes the page of a parity check: the verdict, the calls
// per RPC and outcome, and the differences of res.Diffs grouped by the
// rule that classified it (losses first), each group collapsed with its
// explanation and its count of every difference (res.RulesSeen), which
// may be more than res.Diffs holds (see parity.RuleSamples).
func WriteParity(w io.Writer, res *parity.Result) error {
	title := fmt.Sprintf("Parity of %s and %s", res.Left.Ref, res.Right.Ref)
	return page(w, title, func(w io.Writer) error {
		unit := res.Unit()
		verdict := "parity: all " + unit + " identical"
		switch {
		case res.LossCalls > 0:
			verdict = fmt.Sprintf("loss: %d of %d %s lost data", res.LossCalls, res.Calls, unit)
		case res.BenignCalls > 0:
			verdict = fmt.Sprintf("parity: no loss in %d %s (%d with benign differences)", res.Calls, unit, res.BenignCalls)
		}
		fmt.Fprintf(w, "<section id=\"summary\"><h2>Summary</h2>\n<table>\n")
		fmt.Fprintf(w, "<tr><th>left</th><td>%s (%s)</td></tr>\n<tr><th>right</th><td>%s (%s)</td></tr>\n",
			esc(res.Left.Ref), esc(string(res.Left.Kind)), esc(res.Right.Ref), esc(string(res.Right.Kind)))
		fmt.Fprintf(w, "<tr><th>verdict</th><td id=\"verdict\">%s</td></tr>\n</table></section>\n", esc(verdict))

		heading, kind := "Calls per RPC", "RPC"
		if res.Mode == parity.ModeBlobs {
			heading, kind = "Blobs per kind", "blob kind"
		}
		fmt.Fprintf(w, "<section id=\"rpcs\"><h2>%s</h2>\n<table>\n<tr><th>%s</th><th>%s</th><th>identical</th><th>benign</th><th>losses</th></tr>\n", heading, kind, unit)
		var tot parity.RPCStats
		for _, s := range res.Stats {
			fmt.Fprintf(w, "<tr class=\"rpc\" data-rpc=\"%s\"><td>%s</td><td class=\"n\">%d</td><td class=\"n\">%d</td><td class=\"n\">%d</td><td class=\"n\">%d</td></tr>\n",
				esc(s.RPC), esc(s.RPC), s.Calls, s.Identical, s.Benign, s.Losses)
			tot.Calls, tot.Identical, tot.Benign, tot.Losses = tot.Calls+s.Calls, tot.Identical+s.Identical, tot.Benign+s.Benign, tot.Losses+s.Losses
		}
		fmt.Fprintf(w, "<tr><th>total</th><th class=\"n\">%d</th><th class=\"n\">%d</th><th class=\"n\">%d</th><th class=\"n\">%d</th></tr>\n</table></section>\n",
			tot.Calls, tot.Identical, tot.Benign, tot.Losses)
		writeRuleGroups(w, res)
		return nil
	})
}

// writeRuleGroups lists the differences by rule: loss rules first, then
// by name.
func writeRuleGroups(w io.Writer, res *parity.Result) {
	groups := map[string][]parity.Diff{}
	for _, d := range res.Diffs {
		groups[d.Rule] = append(groups[d.Rule], d)
	}
	rules := make([]string, 0, len(groups))
	for r := range groups {
		rules = append(rules, r)
	}
	sort.Slice(rules, func(i, j int) bool {
		a, b := groups[rules[i]][0].Class, groups[rules[j]][0].Class
		if a != b {
			return a == parity.Loss
		}
		return rules[i] < rules[j]
	})
	total := 0
	for _, n := range res.RulesSeen {
		total += n
	}
	fmt.Fprintf(w, "<section id=\"rules\"><h2>Differences by rule (%d)</h2>\n", max(total, len(res.Diffs)))
	if len(rules) == 0 {
		fmt.Fprint(w, "<p>No difference.</p>\n")
	}
	for _, r := range rules {
		ds := groups[r]
		class := string(ds[0].Class)
		count := max(res.RulesSeen[r], len(ds))
		fmt.Fprintf(w, "<details class=\"rule %s\" data-rule=\"%s\"><summary>%s<span class=\"badge %s\">%s</span><span class=\"badge\">%d</span></summary>\n",
			class, esc(r), esc(r), class, class, count)
		if len(ds) < count {
			fmt.Fprintf(w, "<p class=\"shown\">First %d of %d shown (olmcat parity -o json lists them all).</p>\n", len(ds), count)
		}
		fmt.Fprintf(w, "<p>%s</p>\n<table>\n<tr><th>RPC</th><th>request</th><th>path</th><th>left</th><th>right</th></tr>\n", esc(ds[0].Explanation))
		for _, d := range ds {
			fmt.Fprintf(w, "<tr class=\"diff\"><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
				esc(d.RPC), esc(d.Request), esc(d.Path), esc(clip(d.Left)), esc(clip(d.Right)))
		}
		fmt.Fprint(w, "</table></details>\n")
	}
	fmt.Fprint(w, "</section>\n")
}

// clip keeps a long answer readable; the JSON result (-o json) has it whole.
func clip(s string) string {
	const maxLen = 400
	if len(s) <= maxLen {
		return s
	}
	cut := strings.ToValidUTF8(s[:maxLen], "")
	return cut + fmt.Sprintf("… (%d bytes)", len(s))
}
