package graph

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteDOT writes the graph in Graphviz DOT: left to right, a cluster per
// package and per channel, one node per bundle (name and version) and one
// edge per upgrade edge, styled like the SVG (replaces solid, skips
// dashed, skipRange dotted; problems red; deprecated bundles orange;
// absent bundles dashed grey; the head bold). Node IDs are
// "<package>/<channel>/<bundle>".
func WriteDOT(w io.Writer, g *Graph) error {
	bw := bufio.NewWriter(w)
	fmt.Fprint(bw, "digraph upgrades {\n")
	fmt.Fprint(bw, "  rankdir=LR;\n")
	fmt.Fprint(bw, "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", fontname=\"sans-serif\", fontsize=10];\n")
	fmt.Fprint(bw, "  edge [fontname=\"sans-serif\", fontsize=9];\n")
	for pi, p := range g.Packages {
		label := p.Name
		if p.Deprecation != "" {
			label += " (deprecated)"
		}
		fmt.Fprintf(bw, "  subgraph cluster_%d {\n", pi)
		fmt.Fprintf(bw, "    label=%s;\n", dotQuote(label))
		for ci, c := range p.Channels {
			writeDOTChannel(bw, c, fmt.Sprintf("cluster_%d_%d", pi, ci))
		}
		fmt.Fprint(bw, "  }\n")
	}
	fmt.Fprint(bw, "}\n")
	return bw.Flush()
}

func writeDOTChannel(w io.Writer, c *Channel, cluster string) {
	label := "channel " + c.Name
	if c.Default {
		label += " (default)"
	}
	if c.Deprecation != "" {
		label += " (deprecated)"
	}
	fmt.Fprintf(w, "    subgraph %s {\n", cluster)
	fmt.Fprintf(w, "      label=%s;\n", dotQuote(label))
	if c.Deprecation != "" {
		fmt.Fprint(w, "      style=filled; fillcolor=\"#ece6ff\";\n")
	}
	id := func(name string) string { return dotQuote(c.Package + "/" + c.Name + "/" + name) }
	for _, n := range c.Nodes {
		st := nodeStyleOf(n)
		label := n.Name
		if n.Version != "" {
			label += "\n" + n.Version
		}
		if n.Absent {
			label += "\n(absent)"
		}
		attrs := []string{"label=" + dotQuote(label), "fillcolor=" + dotQuote(st.fill), "color=" + dotQuote(st.stroke)}
		if n.Absent {
			attrs = append(attrs, `style="rounded,dashed"`)
		}
		if n.Head {
			attrs = append(attrs, "penwidth=2.5")
		} else if len(n.Problems) > 0 {
			attrs = append(attrs, "penwidth=2")
		}
		if len(n.Problems) > 0 {
			attrs = append(attrs, "tooltip="+dotQuote(problemList(n.Problems)))
		}
		fmt.Fprintf(w, "      %s [%s];\n", id(n.Name), strings.Join(attrs, ", "))
	}
	for _, e := range c.Edges {
		st := edgeStyleOf(e)
		attrs := []string{"style=" + st.dot, "color=" + dotQuote(st.color)}
		if e.Kind == EdgeSkipRange {
			attrs = append(attrs, "label="+dotQuote(e.Range))
		}
		fmt.Fprintf(w, "      %s -> %s [%s];\n", id(e.From), id(e.To), strings.Join(attrs, ", "))
	}
	fmt.Fprint(w, "    }\n")
}

// dotQuote quotes s as a DOT string.
func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
