package graph

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/blang/semver/v4"
)

// MermaidOption configures WriteMermaid.
type MermaidOption func(*mermaidOptions)

type mermaidOptions struct {
	minEdge string
	v0      bool
}

// MermaidMinimumEdge draws only the package of the bundle name and the
// part of its channels at or above that bundle's version (opm alpha
// render-graph --minimum-edge).
func MermaidMinimumEdge(name string) MermaidOption {
	return func(o *mermaidOptions) { o.minEdge = name }
}

// MermaidV0Semantics marks what OLMv0 does with skips (opm alpha
// render-graph --draw-v0-semantics): skipped bundles in class skipped,
// and the edges OLMv0 never takes dashed red.
func MermaidV0Semantics(on bool) MermaidOption { return func(o *mermaidOptions) { o.v0 = on } }

// ErrUnknownMinimumEdge is the error of MermaidMinimumEdge naming no bundle.
type ErrUnknownMinimumEdge string

func (e ErrUnknownMinimumEdge) Error() string {
	return fmt.Sprintf("unknown minimum edge name: %q", string(e))
}

// mermaidState is what drawing the channels collects for the trailer.
type mermaidState struct {
	o                  mermaidOptions
	linkID             int
	styledLinks        []string
	classes            map[string][]string // class -> node ids
	deprecatedChannels []string
}

// WriteMermaid writes the graph as opm v1.73's alpha render-graph does,
// byte for byte: a "graph LR" flowchart with a subgraph per package and
// per channel, entries by decreasing version, edges from the older bundle
// to the newer one labelled skip, skipRange(<range>) or replace,
// deprecated packages and channels styled and deprecated bundles in
// class deprecated. Where opm is wrong olmcat is not: deprecations are
// matched within their package (opm matched names across packages), each
// deprecated package is styled (opm styled the last one), and the
// linkStyle numbers count edges in the order they are printed (opm's
// pointed at other edges when several packages were drawn).
func WriteMermaid(w io.Writer, g *Graph, opts ...MermaidOption) error {
	st := &mermaidState{classes: map[string][]string{}}
	for _, opt := range opts {
		opt(&st.o)
	}
	minPkg, minVersion, err := minimumEdge(g, st.o.minEdge)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("graph LR\n  classDef deprecated fill:#E8960F\n  classDef skipped stroke:#FF0000,stroke-width:4px\n  classDef deprecatedskipped fill:#E8960F,stroke:#FF0000,stroke-width:4px\n")
	var deprecatedPkgs []string
	for _, p := range g.Packages {
		if minPkg != "" && p.Name != minPkg {
			continue
		}
		channels := append([]*Channel(nil), p.Channels...)
		sort.SliceStable(channels, func(i, j int) bool { return channels[i].Name < channels[j].Name })
		var body strings.Builder
		for _, c := range channels {
			st.writeChannel(&body, c, minVersion, st.o.minEdge)
		}
		if body.Len() == 0 {
			continue
		}
		fmt.Fprintf(bw, "  %%%% package %q\n  subgraph %q\n%s  end\n", p.Name, p.Name, body.String())
		if p.Deprecation != "" {
			deprecatedPkgs = append(deprecatedPkgs, p.Name)
		}
	}
	for _, p := range deprecatedPkgs {
		fmt.Fprintf(bw, "style %s fill:#989695\n", p)
	}
	for _, c := range st.deprecatedChannels {
		fmt.Fprintf(bw, "style %s fill:#DCD0FF\n", c)
	}
	for _, class := range sortedKeys(st.classes) {
		ids := st.classes[class]
		sort.Strings(ids)
		fmt.Fprintf(bw, "class %s %s\n", strings.Join(ids, ","), class)
	}
	if len(st.styledLinks) > 0 {
		fmt.Fprintf(bw, "linkStyle %s stroke:#FF0000,stroke-width:3px,stroke-dasharray:5;\n", strings.Join(st.styledLinks, ","))
	}
	return bw.Flush()
}

// minimumEdge finds the package and version of the --minimum-edge bundle.
func minimumEdge(g *Graph, name string) (string, semver.Version, error) {
	if name == "" {
		return "", semver.Version{}, nil
	}
	for _, p := range g.Packages {
		for _, c := range p.Channels {
			for _, n := range c.Nodes {
				if n.Name == name && !n.Absent {
					return p.Name, n.version, nil
				}
			}
		}
	}
	return "", semver.Version{}, ErrUnknownMinimumEdge(name)
}

// mermaidEntry is a channel entry with its edges after filtering.
type mermaidEntry struct {
	name      string
	version   semver.Version
	skips     []string
	replaces  string
	skipRange string
	rng       semver.Range
}

// writeChannel draws one channel (nothing when filtering left no entry).
func (st *mermaidState) writeChannel(w *strings.Builder, c *Channel, minVersion semver.Version, minEdge string) {
	entries, inBlobOrder := channelEntries(c, minVersion, minEdge)
	if len(entries) == 0 {
		return
	}
	id := c.Package + "-" + c.Name
	fmt.Fprintf(w, "    %%%% channel %q\n    subgraph %s[%q]\n", c.Name, id, c.Name)
	if c.Deprecation != "" {
		st.deprecatedChannels = append(st.deprecatedChannels, id)
	}
	deprecated := map[string]bool{}
	for _, n := range c.Nodes {
		deprecated[n.Name] = n.Deprecation != ""
	}
	skipped := map[string]bool{}
	for _, e := range entries {
		to := fmt.Sprintf("%s-%s[%q]", id, e.name, e.name)
		fmt.Fprintf(w, "      %s\n", to)
		for _, s := range e.skips {
			st.edge(w, id, s, "skip", to, skipped[s])
			skipped[s] = true
		}
		if e.rng != nil {
			for _, t := range inBlobOrder {
				if e.rng(t.version) {
					st.edge(w, id, t.name, fmt.Sprintf("%q", "skipRange("+e.skipRange+")"), to, skipped[e.name])
				}
			}
		}
		if e.replaces != "" {
			st.edge(w, id, e.replaces, "replace", to, skipped[e.name])
		}
	}
	w.WriteString("    end\n")
	for _, e := range entries {
		class := ""
		switch {
		case st.o.v0 && skipped[e.name] && deprecated[e.name]:
			class = "deprecatedskipped"
		case st.o.v0 && skipped[e.name]:
			class = "skipped"
		case deprecated[e.name]:
			class = "deprecated"
		}
		if class != "" {
			st.classes[class] = append(st.classes[class], id+"-"+e.name)
		}
	}
}

// edge draws one edge, numbered for linkStyle; styled edges are the ones
// OLMv0 never takes (into a skipped bundle, or a second skip of one).
func (st *mermaidState) edge(w *strings.Builder, id, from, label, to string, styled bool) {
	fmt.Fprintf(w, "      %s-%s[%q]-- %s --> %s\n", id, from, from, label, to)
	if st.o.v0 && styled {
		st.styledLinks = append(st.styledLinks, fmt.Sprint(st.linkID))
	}
	st.linkID++
}

// channelEntries returns c's entries by decreasing version, and in blob
// order (skipRange edges are drawn in that order), with the edges kept
// above minVersion (all when minEdge is ""): the minimum-edge bundle
// itself is kept without edges, an entry that lost every edge is dropped,
// one that never had any is kept at or above minVersion.
func channelEntries(c *Channel, minVersion semver.Version, minEdge string) (byVersion, inBlobOrder []mermaidEntry) {
	versions := map[string]semver.Version{}
	for _, n := range c.Nodes {
		if n.hasVersion {
			versions[n.Name] = n.version
		}
	}
	var out []mermaidEntry
	for _, ce := range c.Entries {
		e := mermaidEntry{name: ce.Name, version: versions[ce.Name], replaces: ce.Replaces, skips: ce.Skips, skipRange: ce.SkipRange}
		if ce.SkipRange != "" {
			e.rng, _ = semver.ParseRange(ce.SkipRange) // an invalid range draws no edge; validation reports it
		}
		if minEdge != "" && !keepAboveMinimum(&e, versions, minVersion, minEdge) {
			continue
		}
		out = append(out, e)
	}
	byVersion = append([]mermaidEntry(nil), out...)
	sort.Slice(byVersion, func(i, j int) bool { return byVersion[i].version.GT(byVersion[j].version) })
	return byVersion, out
}

// keepAboveMinimum drops e's edges below minVersion and says whether e
// is drawn at all.
func keepAboveMinimum(e *mermaidEntry, versions map[string]semver.Version, minVersion semver.Version, minEdge string) bool {
	if e.name == minEdge {
		e.replaces, e.skips, e.rng = "", nil, nil
		return true
	}
	hadEdges := e.replaces != "" || len(e.skips) > 0 || e.rng != nil
	if e.replaces != "" && versions[e.replaces].LT(minVersion) {
		e.replaces = ""
	}
	var skips []string
	for _, s := range e.skips {
		if versions[s].GE(minVersion) {
			skips = append(skips, s)
		}
	}
	e.skips = skips
	if e.rng != nil && !e.rng(minVersion) {
		e.rng = nil
	}
	if e.replaces != "" || len(e.skips) > 0 || e.rng != nil {
		return true
	}
	return !hadEdges && e.version.GE(minVersion)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
