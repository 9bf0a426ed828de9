package graph

import (
	"sort"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg/model"
)

// Colours shared by the DOT and SVG writers.
const (
	colorNode       = "#ffffff"
	colorStroke     = "#4a5568"
	colorDeprecated = "#e8960f" // opm's mermaid colour for deprecated bundles
	colorProblem    = "#d62728"
	colorWarning    = "#b7791f"
	colorAbsent     = "#f1f1f1"
	colorReplaces   = "#2d3748"
	colorSkips      = "#2b6cb0"
	colorSkipRange  = "#2f855a"
)

type nodeStyle struct{ fill, stroke string }

// nodeStyleOf: deprecated bundles are filled orange, absent ones grey;
// errors draw a red border, warnings an amber one.
func nodeStyleOf(n *Node) nodeStyle {
	st := nodeStyle{fill: colorNode, stroke: colorStroke}
	switch {
	case n.Absent:
		st.fill = colorAbsent
	case n.Deprecation != "":
		st.fill = colorDeprecated
	}
	if len(n.Problems) > 0 {
		st.stroke = colorWarning
		for _, k := range n.Problems {
			if !isWarning(k) {
				st.stroke = colorProblem
			}
		}
	}
	return st
}

type edgeStyle struct {
	color string
	dot   string // DOT style
	dash  string // SVG stroke-dasharray, "" for solid
}

func edgeStyleOf(e Edge) edgeStyle {
	var st edgeStyle
	switch e.Kind {
	case EdgeSkips:
		st = edgeStyle{color: colorSkips, dot: "dashed", dash: "6 3"}
	case EdgeSkipRange:
		st = edgeStyle{color: colorSkipRange, dot: "dotted", dash: "2 3"}
	default:
		st = edgeStyle{color: colorReplaces, dot: "solid"}
	}
	if e.Problem != "" {
		st.color = colorProblem
		if isWarning(e.Problem) {
			st.color = colorWarning
		}
	}
	return st
}

// isWarning says whether findings of kind k leave the catalog valid.
func isWarning(k model.GraphFindingKind) bool {
	switch k {
	case model.GraphMissingReplaces, model.GraphMissingSkips, model.GraphUnmatchedSkipRange:
		return true
	}
	return false
}

// problemTitles are the legend texts of the findings.
var problemTitles = map[model.GraphFindingKind]string{
	model.GraphEmptySkip:          "empty name in skips",
	model.GraphInvalidSkipRange:   "invalid skipRange",
	model.GraphNoHead:             "no channel head (every bundle is replaced or skipped)",
	model.GraphMultipleHeads:      "one of several channel heads",
	model.GraphCycle:              "replaces cycle",
	model.GraphStranded:           "stranded: no head reaches it",
	model.GraphMissingReplaces:    "absent bundle named by replaces",
	model.GraphMissingSkips:       "absent bundle named by skips",
	model.GraphUnmatchedSkipRange: "skipRange matching no bundle",
}

// ProblemTitle is the legend text of a finding kind.
func ProblemTitle(k model.GraphFindingKind) string {
	if t, ok := problemTitles[k]; ok {
		return t
	}
	return string(k)
}

func problemList(ks []model.GraphFindingKind) string {
	out := make([]string, 0, len(ks))
	for _, k := range ks {
		out = append(out, ProblemTitle(k))
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}
