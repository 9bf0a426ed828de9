package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/operator-catalog/olmcat/internal/quote"
	"github.com/operator-catalog/olmcat/registry/parity"
)

// WriteParityJSON writes a parity result as indented JSON (ParityJSON
// writes the same document while the check runs, with every difference).
func WriteParityJSON(w io.Writer, r *parity.Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// WriteParityText writes a parity result as a human summary: a table of
// calls per RPC and outcome, then the first maxDiffs differences (losses
// first), then the benign rules seen with their explanations, then the
// verdict.
func WriteParityText(w io.Writer, r *parity.Result, maxDiffs int, strict bool) error {
	fmt.Fprintf(w, "parity: %s (%s) vs %s (%s)\n\n", quote.Name(r.Left.Ref), r.Left.Kind, quote.Name(r.Right.Ref), r.Right.Kind)
	const row = "%-36s %7v %10v %8v %7v\n"
	kind, count := "RPC", "CALLS"
	if r.Mode == parity.ModeBlobs {
		kind, count = "BLOB KIND", "BLOBS"
	}
	fmt.Fprintf(w, row, kind, count, "IDENTICAL", "BENIGN", "LOSSES")
	var tot parity.RPCStats
	for _, s := range r.Stats {
		fmt.Fprintf(w, row, s.RPC, s.Calls, s.Identical, s.Benign, s.Losses)
		tot.Calls += s.Calls
		tot.Identical += s.Identical
		tot.Benign += s.Benign
		tot.Losses += s.Losses
	}
	fmt.Fprintf(w, row, "TOTAL", tot.Calls, tot.Identical, tot.Benign, tot.Losses)

	if len(r.Diffs) > 0 && maxDiffs > 0 {
		n := min(maxDiffs, len(r.Diffs))
		fmt.Fprintf(w, "\nDifferences (first %d of %d, losses first):\n", n, r.DiffCounts[parity.Loss]+r.DiffCounts[parity.Benign])
		for _, d := range r.Diffs[:n] {
			// The request, path and values hold names: each is
			// quoted whole when one of them could forge output.
			fmt.Fprintf(w, "  %-6s %s {%s} %s\n", strings.ToUpper(string(d.Class)), d.RPC, quote.Name(d.Request), quote.Name(d.Path))
			fmt.Fprintf(w, "         left:  %s\n         right: %s\n         rule:  %s\n", quote.Name(d.Left), quote.Name(d.Right), d.Rule)
		}
	}

	if r.Mode != parity.ModeBlobs { // a blob check compares the channels as blobs
		fmt.Fprintf(w, "\nUpgrade graphs: %d channel(s) compared, %d difference(s)\n", r.GraphChannels, len(r.Graph))
	}
	for i, g := range r.Graph {
		if i == max(maxDiffs, 1) {
			fmt.Fprintf(w, "  ... %d more (-o json has them all)\n", len(r.Graph)-i)
			break
		}
		fmt.Fprintf(w, "  LOSS   %s\n", g)
	}

	if len(r.RulesSeen) > 0 {
		fmt.Fprintf(w, "\nRules seen:\n")
		for _, rule := range parity.Rules {
			if n := r.RulesSeen[rule.Name]; n > 0 {
				fmt.Fprintf(w, "  %-6s %-40s %5d  %s\n", rule.Class, rule.Name, n, rule.Explanation)
			}
		}
	}

	fmt.Fprintln(w)
	fmt.Fprintln(w, parityVerdict(r, strict))
	return nil
}
