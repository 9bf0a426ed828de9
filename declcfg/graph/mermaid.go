package graph

import (
	"bufio"
	"fmt"
	"io"
	"sort"

	"github.com/blang/semver/v4"
)

// WriteMermaid writes the graph as opm alpha render-graph does: a "graph LR"
// flowchart with a subgraph per package and per channel, edges from the
// older bundle to the newer one labelled replace, skip or
// skipRange(<range>), deprecated bundles in class "deprecated" and
// deprecated packages and channels styled. Channels are in name order
// across packages and entries in blob order, as opm writes them, so that
// documents built on opm's output keep working.
func WriteMermaid(w io.Writer, g *Graph) error {
	bw := bufio.NewWriter(w)
	var channels []*Channel
	for _, p := range g.Packages {
		channels = append(channels, p.Channels...)
	}
	sort.SliceStable(channels, func(i, j int) bool { return channels[i].Name < channels[j].Name })
	byPkg := map[string][]*Channel{}
	for _, c := range channels {
		byPkg[c.Package] = append(byPkg[c.Package], c)
	}

	fmt.Fprint(bw, "graph LR\n")
	fmt.Fprint(bw, "  classDef deprecated fill:#E8960F\n")
	var deprecatedPkgs, deprecatedChannels []string
	for _, p := range g.Packages {
		if len(byPkg[p.Name]) == 0 {
			continue
		}
		fmt.Fprintf(bw, "  %%%% package %q\n", p.Name)
		fmt.Fprintf(bw, "  subgraph %q\n", p.Name)
		for _, c := range byPkg[p.Name] {
			id := c.Package + "-" + c.Name
			writeMermaidChannel(bw, c, id)
			if c.Deprecation != "" {
				deprecatedChannels = append(deprecatedChannels, id)
			}
		}
		fmt.Fprint(bw, "  end\n")
		if p.Deprecation != "" {
			deprecatedPkgs = append(deprecatedPkgs, p.Name)
		}
	}
	for _, p := range deprecatedPkgs {
		fmt.Fprintf(bw, "style %s fill:#989695\n", p)
	}
	for _, c := range deprecatedChannels {
		fmt.Fprintf(bw, "style %s fill:#DCD0FF\n", c)
	}
	return bw.Flush()
}

func writeMermaidChannel(w io.Writer, c *Channel, id string) {
	fmt.Fprintf(w, "    %%%% channel %q\n", c.Name)
	fmt.Fprintf(w, "    subgraph %s[%q]\n", id, c.Name)
	nodes := map[string]*Node{}
	for _, n := range c.Nodes {
		nodes[n.Name] = n
	}
	for _, e := range c.Entries {
		class := ""
		if n := nodes[e.Name]; n != nil && n.Deprecation != "" {
			class = ":::deprecated"
		}
		entryID := id + "-" + e.Name
		fmt.Fprintf(w, "      %s[%q]%s\n", entryID, e.Name, class)
		if e.Replaces != "" {
			fmt.Fprintf(w, "      %s-%s[%q]-- replace --> %s[%q]\n", id, e.Replaces, e.Replaces, entryID, e.Name)
		}
		for _, s := range e.Skips {
			fmt.Fprintf(w, "      %s-%s[%q]-- skip --> %s[%q]\n", id, s, s, entryID, e.Name)
		}
		if e.SkipRange == "" {
			continue
		}
		rng, err := semver.ParseRange(e.SkipRange)
		if err != nil {
			continue // an invalid range draws no edge; validation reports it
		}
		for _, t := range c.Entries {
			if n := nodes[t.Name]; n != nil && n.hasVersion && rng(n.version) {
				fmt.Fprintf(w, "      %s-%s[%q]-- \"skipRange(%s)\" --> %s[%q]\n", id, t.Name, t.Name, e.SkipRange, entryID, e.Name)
			}
		}
	}
	fmt.Fprint(w, "    end\n")
}
