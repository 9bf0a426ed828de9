package graph

import (
	"fmt"
	"strings"
)

// SVGOption configures WriteSVG.
type SVGOption func(*svgOptions)

type svgOptions struct{ embedded bool }

// Embedded leaves SVGStyle and SVGDefs out of the SVG, for pages that hold
// many pictures and carry both once (they must then be in the page).
func Embedded() SVGOption { return func(o *svgOptions) { o.embedded = true } }

// SVGStyle is the stylesheet of the SVG pictures: nodes and edges carry
// classes (kind, marks, problems) and the look comes from here.
var SVGStyle = strings.Join([]string{
	".upgrade-graph text{font-family:sans-serif;font-size:11px}",
	".upgrade-graph .package-title{font-size:14px;font-weight:bold}",
	".upgrade-graph .channel-title{font-size:12px;font-weight:bold;fill:#2d3748}",
	".upgrade-graph .deprecated-channel-bg{fill:#ece6ff}",
	".upgrade-graph .channel.deprecated-channel .channel-title{fill:#6b46c1}",
	".node rect{fill:" + colorNode + ";stroke:" + colorStroke + ";stroke-width:1.2}",
	".node text{text-anchor:middle}",
	".node text.v{fill:#4a5568;font-size:10px}",
	".node.deprecated rect{fill:" + colorDeprecated + "}",
	".node.absent rect{fill:" + colorAbsent + ";stroke-dasharray:4 3}",
	".node.head rect{stroke-width:3}",
	".node.warning rect{stroke:" + colorWarning + ";stroke-width:2.5}",
	".node.error rect{stroke:" + colorProblem + ";stroke-width:2.5}",
	".node.dropped rect{stroke:" + colorRemoved + ";stroke-width:3;stroke-dasharray:6 2}",
	".node.added rect{stroke:" + colorAdded + ";stroke-width:3}",
	".edge{fill:none;stroke-width:1.4}",
	".edge.replaces{stroke:" + colorReplaces + ";marker-end:url(#olmcat-arrow-replaces)}",
	".edge.skips{stroke:" + colorSkips + ";stroke-dasharray:6 3;marker-end:url(#olmcat-arrow-skips)}",
	".edge.skipRange{stroke:" + colorSkipRange + ";stroke-dasharray:2 3;marker-end:url(#olmcat-arrow-skipRange)}",
	".edge.warning{stroke:" + colorWarning + ";stroke-width:2.4;marker-end:url(#olmcat-arrow-warning)}",
	".edge.error{stroke:" + colorProblem + ";stroke-width:2.4;marker-end:url(#olmcat-arrow-error)}",
	".edge.removed{stroke:" + colorRemoved + ";stroke-width:2.4;marker-end:url(#olmcat-arrow-removed)}",
	".edge.added{stroke:" + colorAdded + ";stroke-width:2.4;marker-end:url(#olmcat-arrow-added)}",
	".finding.error{fill:" + colorProblem + "}",
	".finding.warning{fill:" + colorWarning + "}",
}, "\n")

// SVGDefs holds the arrowheads the stylesheet names.
var SVGDefs = func() string {
	var b strings.Builder
	b.WriteString("<defs>")
	for _, m := range []struct{ name, color string }{
		{"replaces", colorReplaces}, {"skips", colorSkips}, {"skipRange", colorSkipRange},
		{"warning", colorWarning}, {"error", colorProblem}, {"removed", colorRemoved}, {"added", colorAdded},
	} {
		fmt.Fprintf(&b, `<marker id="olmcat-arrow-%s" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="%s"/></marker>`, m.name, m.color)
	}
	b.WriteString("</defs>\n")
	return b.String()
}()
