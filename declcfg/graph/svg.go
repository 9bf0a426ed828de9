package graph

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg/model"
)

// WriteSVG draws the graph as one standalone SVG document: a block per
// channel (packages in name order, channels in name order) laid out left
// to right by version, then a legend of every mark the picture uses.
// Elements carry classes and data attributes for tests and pages: each
// channel is a <g class="channel" data-package data-channel>, each bundle
// a <g class="node ..." data-name>, each edge a <path class="edge <kind>"
// data-from data-to>.
func WriteSVG(w io.Writer, g *Graph, opts ...SVGOption) error {
	o := svgOptions{}
	for _, opt := range opts {
		opt(&o)
	}
	var layouts []*channelLayout
	width, height := 320.0, 0.0
	for _, p := range g.Packages {
		height += titleHeight
		for _, c := range p.Channels {
			l := layoutChannel(c)
			layouts = append(layouts, l)
			width = max(width, l.width)
			height += l.height
		}
	}
	leg := legendFor(g)
	height += float64(len(leg))*lineHeight + titleHeight + margin

	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" class="upgrade-graph" width="%s" height="%s" viewBox="0 0 %s %s" font-family="sans-serif" font-size="11">`+"\n",
		num(width), num(height), num(width), num(height))
	if !o.embedded {
		fmt.Fprintf(bw, "<style>%s</style>\n", SVGStyle)
		fmt.Fprint(bw, SVGDefs)
	}
	fmt.Fprintf(bw, `<rect width="%s" height="%s" fill="#ffffff"/>`+"\n", num(width), num(height))
	y := 0.0
	li := 0
	for _, p := range g.Packages {
		title := "package " + p.Name
		if p.Deprecation != "" {
			title += " (deprecated: " + p.Deprecation + ")"
		}
		fmt.Fprintf(bw, `<text class="package-title" x="%d" y="%s" font-size="14" font-weight="bold">%s</text>`+"\n", margin, num(y+18), esc(title))
		y += titleHeight
		for range p.Channels {
			writeChannel(bw, layouts[li], y)
			y += layouts[li].height
			li++
		}
	}
	writeLegend(bw, leg, y)
	fmt.Fprint(bw, "</svg>\n")
	return bw.Flush()
}

func writeChannel(w io.Writer, l *channelLayout, y0 float64) {
	c := l.ch
	class := "channel"
	if c.Deprecation != "" {
		class += " deprecated-channel"
	}
	fmt.Fprintf(w, `<g class="%s" data-package="%s" data-channel="%s" transform="translate(0,%s)">`+"\n", class, esc(c.Package), esc(c.Name), num(y0))
	title := "channel " + c.Name
	var tags []string
	if c.Default {
		tags = append(tags, "default")
	}
	if c.Deprecation != "" {
		tags = append(tags, "deprecated: "+c.Deprecation)
	}
	if c.Head != "" {
		tags = append(tags, "head "+c.Head)
	}
	if len(tags) > 0 {
		title += " (" + strings.Join(tags, "; ") + ")"
	}
	if c.Deprecation != "" {
		fmt.Fprintf(w, `<rect class="deprecated-channel-bg" x="4" y="2" width="%s" height="%s" rx="6"/>`+"\n", num(l.width-8), num(l.height-4))
	}
	fmt.Fprintf(w, `<text class="channel-title" x="%d" y="18">%s</text>`+"\n", margin, esc(title))
	for _, e := range c.Edges {
		writeEdge(w, l, e)
	}
	for _, p := range l.order {
		writeNode(w, l, p)
	}
	fy := l.height - margin - float64(len(c.Findings))*lineHeight + 4
	for i, f := range c.Findings {
		sev := "error"
		if f.Warning {
			sev = "warning"
		}
		fmt.Fprintf(w, `<text class="finding %s" data-kind="%s" x="%d" y="%s">%s: %s</text>`+"\n",
			sev, f.Kind, margin, num(fy+float64(i)*lineHeight), sev, esc(f.Message))
	}
	fmt.Fprint(w, "</g>\n")
}

// severity is "error" or "warning" for a node or edge with problems.
func severity(kinds ...model.GraphFindingKind) string {
	sev := ""
	for _, k := range kinds {
		if k == "" {
			continue
		}
		if !isWarning(k) {
			return "error"
		}
		sev = "warning"
	}
	return sev
}

func writeNode(w io.Writer, l *channelLayout, p *placed) {
	n := p.node
	classes := []string{"node"}
	if n.Head {
		classes = append(classes, "head")
	}
	if n.Deprecation != "" {
		classes = append(classes, "deprecated")
	}
	if n.Absent {
		classes = append(classes, "absent")
	}
	if sev := severity(n.Problems...); sev != "" {
		classes = append(classes, sev)
	}
	for _, k := range n.Problems {
		classes = append(classes, "problem-"+string(k))
	}
	if n.Mark != "" {
		classes = append(classes, n.Mark)
	}
	// The tooltip says what the box cannot: deprecation, problems, marks.
	tip := ""
	if n.Deprecation != "" {
		tip += "deprecated: " + n.Deprecation + "\n"
	}
	if len(n.Problems) > 0 {
		tip += problemList(n.Problems) + "\n"
	}
	if n.Mark != "" {
		tip += n.Mark + "\n"
	}
	cx := p.x + l.nodeW/2
	fmt.Fprintf(w, `<g class="%s" data-name="%s">`, strings.Join(classes, " "), esc(n.Name))
	if tip != "" {
		fmt.Fprintf(w, `<title>%s</title>`, esc(strings.TrimSuffix(tip, "\n")))
	}
	fmt.Fprintf(w, `<rect x="%s" y="%s" width="%s" height="%d" rx="6"/><text x="%s" y="%s">%s</text>`,
		num(p.x), num(p.y), num(l.nodeW), nodeHeight, num(cx), num(p.y+16), esc(fit(n.Name, l.nodeW)))
	second := n.Version
	if n.Absent {
		second = "absent"
	}
	if n.Mark != "" {
		second = strings.TrimSpace(second + " " + n.Mark)
	}
	if second != "" {
		fmt.Fprintf(w, `<text class="v" x="%s" y="%s">%s</text>`, num(cx), num(p.y+30), esc(second))
	}
	fmt.Fprint(w, "</g>\n")
}

// writeEdge draws one edge from From to To (the upgrade direction).
func writeEdge(w io.Writer, l *channelLayout, e Edge) {
	a, b := l.nodes[e.From], l.nodes[e.To]
	if a == nil || b == nil {
		return
	}
	var d string
	ax, bx := a.x+l.nodeW/2, b.x+l.nodeW/2
	switch {
	case e.Kind == EdgeReplaces && a.row == b.row && a.col < b.col && !l.between(a.row, a.col, b.col):
		y := a.y + nodeHeight/2
		d = fmt.Sprintf("M%s,%sH%s", num(a.x+l.nodeW), num(y), num(b.x))
	case a.row == b.row:
		// Skips arc lower than skipRange matches, so that both edges
		// between the same bundles stay visible.
		h := min(18+8*float64(abs(b.col-a.col)), arcSpace-16)
		if e.Kind == EdgeSkipRange {
			h += 12
		}
		d = fmt.Sprintf("M%s,%sC%s,%s %s,%s %s,%s", num(ax), num(a.y), num(ax), num(a.y-h), num(bx), num(b.y-h), num(bx), num(b.y))
	default:
		y1, y2 := a.y+nodeHeight, b.y
		if a.row > b.row {
			y1, y2 = a.y, b.y+nodeHeight
		}
		mid := (y1 + y2) / 2
		// Edges of different kinds between the same bundles bend apart.
		bend := map[EdgeKind]float64{EdgeReplaces: 0, EdgeSkips: -14, EdgeSkipRange: 14}[e.Kind]
		d = fmt.Sprintf("M%s,%sC%s,%s %s,%s %s,%s", num(ax), num(y1), num(ax+bend), num(mid), num(bx+bend), num(mid), num(bx), num(y2))
	}
	classes := "edge " + string(e.Kind)
	if e.Problem != "" {
		classes += " " + severity(e.Problem) + " problem-" + string(e.Problem)
	}
	if e.Mark != "" {
		classes += " " + e.Mark
	}
	rng := ""
	if e.Range != "" {
		rng = fmt.Sprintf(` data-range="%s"`, esc(e.Range))
	}
	fmt.Fprintf(w, `<path class="%s" data-from="%s" data-to="%s"%s d="%s"/>`+"\n", classes, esc(e.From), esc(e.To), rng, d)
}

// legendEntry is one line of the legend.
type legendEntry struct {
	kind, text string
	draw       func(w io.Writer, y float64)
}

// legendFor lists the marks used by the picture, in a fixed order.
func legendFor(g *Graph) []legendEntry {
	used := map[string]bool{}
	for _, p := range g.Packages {
		for _, c := range p.Channels {
			for _, n := range c.Nodes {
				used["head"] = used["head"] || n.Head
				used["deprecated"] = used["deprecated"] || n.Deprecation != ""
				used["absent"] = used["absent"] || n.Absent
				used["node-"+n.Mark] = true
				for _, k := range n.Problems {
					used["problem-"+string(k)] = true
				}
			}
			for _, e := range c.Edges {
				used["edge-"+string(e.Kind)] = true
				used["edge-"+e.Mark] = true
			}
			for _, f := range c.Findings {
				used["problem-"+string(f.Kind)] = true
			}
			used["deprecated-channel"] = used["deprecated-channel"] || c.Deprecation != ""
		}
	}
	box := func(class string) func(io.Writer, float64) {
		return func(w io.Writer, y float64) {
			fmt.Fprintf(w, `<g class="node %s"><rect x="%d" y="%s" width="28" height="12" rx="3"/></g>`, class, margin, num(y-10))
		}
	}
	line := func(class string) func(io.Writer, float64) {
		return func(w io.Writer, y float64) {
			fmt.Fprintf(w, `<path class="%s" d="M%d,%sh28"/>`, class, margin, num(y-4))
		}
	}
	all := []legendEntry{
		{"edge-replaces", "replaces (upgrade edge, older to newer)", line("edge replaces")},
		{"edge-skips", "skips", line("edge skips")},
		{"edge-skipRange", "skipRange match", line("edge skipRange")},
		{"edge-" + MarkAdded, "edge added by the migration", line("edge " + MarkAdded)},
		{"edge-" + MarkRemoved, "edge removed by the migration", line("edge " + MarkRemoved)},
		{"head", "channel head", box("head")},
		{"deprecated", "deprecated bundle (olm.deprecations)", box("deprecated")},
		{"absent", "bundle named by an edge but absent from the channel", box("absent")},
		{"node-" + MarkDropped, "bundle dropped by the migration", box(MarkDropped)},
		{"deprecated-channel", "deprecated channel (olm.deprecations)", func(w io.Writer, y float64) {
			fmt.Fprintf(w, `<rect class="deprecated-channel-bg" x="%d" y="%s" width="28" height="12" rx="3"/>`, margin, num(y-10))
		}},
		{"node-" + MarkAdded, "bundle added by the migration", box(MarkAdded)},
	}
	kinds := make([]string, 0, len(problemTitles))
	for k := range problemTitles {
		kinds = append(kinds, string(k))
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		kind := model.GraphFindingKind(k)
		all = append(all, legendEntry{"problem-" + k, severity(kind) + ": " + ProblemTitle(kind), box(severity(kind))})
	}
	var out []legendEntry
	for _, e := range all {
		if used[e.kind] {
			out = append(out, e)
		}
	}
	return out
}

func writeLegend(w io.Writer, entries []legendEntry, y float64) {
	fmt.Fprintf(w, `<g class="legend" transform="translate(0,%s)">`+"\n", num(y))
	fmt.Fprintf(w, `<text x="%d" y="18" font-weight="bold">legend</text>`+"\n", margin)
	for i, e := range entries {
		ly := float64(titleHeight) + float64(i)*lineHeight + 10
		fmt.Fprintf(w, `<g class="legend-entry" data-kind="%s">`, e.kind)
		e.draw(w, ly)
		fmt.Fprintf(w, `<text x="%d" y="%s">%s</text></g>`+"\n", margin+40, num(ly), esc(e.text))
	}
	fmt.Fprint(w, "</g>\n")
}

// fit shortens s with an ellipsis to fit width pixels.
func fit(s string, width float64) string {
	n := int((width - 10) / charWidth)
	r := []rune(s)
	if len(r) <= n || n < 4 {
		return s
	}
	return string(r[:n-1]) + "…"
}

// num formats a coordinate in whole pixels: enough for the picture, and
// short (pages hold tens of thousands of them).
func num(f float64) string { return strconv.Itoa(int(math.Round(f))) }

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")

func esc(s string) string { return xmlEscaper.Replace(s) }
