package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/operator-catalog/olmcat/registry/parity"
)

// ParityJSON returns a parity.Report that writes the result to w as one JSON
// document while the check runs: the sides, then each difference as it
// is found (the first maxDiffs of them; all when maxDiffs is negative),
// then the statistics, totals, rules seen and graph differences. Its
// fields are those of WriteParityJSON; the differences come in the order
// found, not losses first, and diffsOmitted counts those left out.
func ParityJSON(w io.Writer, maxDiffs int) parity.Report {
	return &jsonReport{w: w, max: maxDiffs}
}

type jsonReport struct {
	w       io.Writer
	max     int
	written int
	buf     bytes.Buffer
}

// field writes `"name": value` at the top level of the document.
func (j *jsonReport) field(name string, v any, last bool) error {
	j.buf.Reset()
	fmt.Fprintf(&j.buf, "  %q: ", name)
	if err := j.encode(v, "  "); err != nil {
		return err
	}
	if !last {
		j.buf.WriteByte(',')
	}
	j.buf.WriteByte('\n')
	_, err := j.w.Write(j.buf.Bytes())
	return err
}

// encode appends v's indented JSON to buf, without a final newline.
func (j *jsonReport) encode(v any, prefix string) error {
	enc := json.NewEncoder(&j.buf)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode parity report: %w", err)
	}
	j.buf.Truncate(j.buf.Len() - 1)
	return nil
}

// Begin implements parity.Report.
func (j *jsonReport) Begin(left, right parity.SideInfo) error {
	if _, err := io.WriteString(j.w, "{\n"); err != nil {
		return err
	}
	if err := j.field("left", left, false); err != nil {
		return err
	}
	if err := j.field("right", right, false); err != nil {
		return err
	}
	_, err := io.WriteString(j.w, `  "diffs": [`)
	return err
}

// Diff implements parity.Report.
func (j *jsonReport) Diff(d parity.Diff) error {
	if j.max >= 0 && j.written >= j.max {
		return nil
	}
	j.buf.Reset()
	if j.written > 0 {
		j.buf.WriteByte(',')
	}
	j.buf.WriteString("\n    ")
	if err := j.encode(d, "    "); err != nil {
		return err
	}
	j.written++
	_, err := j.w.Write(j.buf.Bytes())
	return err
}

// End implements parity.Report.
func (j *jsonReport) End(res *parity.Result) error {
	end := "],\n"
	if j.written > 0 {
		end = "\n  ],\n"
	}
	if _, err := io.WriteString(j.w, end); err != nil {
		return err
	}
	total := res.DiffCounts[parity.Loss] + res.DiffCounts[parity.Benign]
	for _, f := range []struct {
		name string
		v    any
	}{
		{"mode", res.Mode}, {"diffsOmitted", total - j.written}, {"stats", res.Stats}, {"calls", res.Calls},
		{"benignCalls", res.BenignCalls}, {"lossCalls", res.LossCalls}, {"diffCounts", res.DiffCounts},
		{"rulesSeen", res.RulesSeen}, {"graph", res.Graph},
	} {
		if err := j.field(f.name, f.v, false); err != nil {
			return err
		}
	}
	if err := j.field("graphChannels", res.GraphChannels, true); err != nil {
		return err
	}
	_, err := io.WriteString(j.w, "}\n")
	return err
}
