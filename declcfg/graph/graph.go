package graph

import (
	"fmt"
	"sort"

	"github.com/blang/semver/v4"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/model"
)

// Graph is the upgrade graphs of a catalog: packages by name, each with
// its channels by name.
type Graph struct {
	Packages []*Package
}

// Package is one package's channels.
type Package struct {
	Name           string
	DefaultChannel string
	// Deprecation is the olm.deprecations message for the package, if any.
	Deprecation string
	Channels    []*Channel
}

// Channel is the upgrade graph of one channel.
type Channel struct {
	Package string
	Name    string
	// Default is true for the package's default channel.
	Default bool
	// Deprecation is the olm.deprecations message for the channel, if any.
	Deprecation string
	// Entries are the channel's entries in blob order (what opm's mermaid
	// output follows).
	Entries []declcfg.ChannelEntry
	// Nodes are the bundles, ordered left to right by version. Bundles
	// named by an edge but absent from the channel are nodes too (Absent).
	Nodes []*Node
	// Edges are the upgrade edges, in entry order, then replaces, skips,
	// skipRange targets.
	Edges []Edge
	// Head is the channel head ("" when there is none or several).
	Head string
	// Findings are the channel's upgrade-graph problems, as validation
	// reports them (model.AnalyzeChannel).
	Findings []model.GraphFinding
}

// Node is one bundle of a channel.
type Node struct {
	Name string
	// Version is the bundle's olm.package version, "" when unknown.
	Version string
	// Deprecation is the olm.deprecations message for the bundle, if any.
	Deprecation string
	// Absent is true for a bundle an edge names that the channel lacks.
	Absent bool
	// Head is true for the channel head.
	Head bool
	// Problems are the kinds of findings that involve this bundle.
	Problems []model.GraphFindingKind
	// Mark is set by MarkChanges: MarkDropped on a before-graph node the
	// after graph lacks, MarkAdded on an after-graph node that is new.
	Mark string

	version    semver.Version
	hasVersion bool
}

// EdgeKind is how one bundle upgrades from another.
type EdgeKind string

// Edge kinds.
const (
	EdgeReplaces  EdgeKind = "replaces"
	EdgeSkips     EdgeKind = "skips"
	EdgeSkipRange EdgeKind = "skipRange"
)

// Edge is an upgrade edge: To (a channel entry) replaces, skips or
// skipRange-matches From. Upgrades go from From to To.
type Edge struct {
	From string
	To   string
	Kind EdgeKind
	// Range is the skipRange of a skipRange edge.
	Range string
	// Problem is the kind of finding the edge is part of, if any
	// (a cycle, or an edge naming an absent bundle).
	Problem model.GraphFindingKind
	// Mark is set by MarkChanges: MarkRemoved on a before-graph edge the
	// after graph lacks, MarkAdded on an after-graph edge that is new.
	Mark string
}

// Option selects what Build includes.
type Option func(*options)

type options struct {
	pkg, channel string
}

// WithPackage keeps only package name.
func WithPackage(name string) Option { return func(o *options) { o.pkg = name } }

// WithChannel keeps only channels called name.
func WithChannel(name string) Option { return func(o *options) { o.channel = name } }

// Build links the blobs of cfg into upgrade graphs. Unlike
// model.FromDeclcfg it accepts invalid graphs: their problems are what
// the pictures show. It fails only when a selected package or channel does
// not exist.
func Build(cfg *declcfg.DeclarativeConfig, opts ...Option) (*Graph, error) {
	b := NewBuilder(opts...)
	b.Add(cfg)
	return b.Graph()
}

// Builder builds the Graph of a catalog handed over in parts, each part
// holding every blob of the packages it names (declcfg.EachPackage gives
// such parts): only the graph is kept, never the catalog. The result is
// Build's for the parts put together.
type Builder struct {
	o options
	g Graph
}

// NewBuilder returns a Builder with Build's options.
func NewBuilder(opts ...Option) *Builder {
	b := &Builder{}
	for _, opt := range opts {
		opt(&b.o)
	}
	return b
}

// Package is the package WithPackage selected ("" for every package).
func (b *Builder) Package() string { return b.o.pkg }

// Add links the packages of cfg; no other part may hold blobs of them.
func (b *Builder) Add(cfg *declcfg.DeclarativeConfig) {
	o := b.o
	pkgs := map[string]*Package{}
	get := func(name string) *Package {
		p := pkgs[name]
		if p == nil {
			p = &Package{Name: name}
			pkgs[name] = p
		}
		return p
	}
	for _, p := range cfg.Packages {
		if o.pkg == "" || p.Name == o.pkg {
			get(p.Name).DefaultChannel = p.DefaultChannel
		}
	}
	versions := map[[2]string]semver.Version{}
	for _, b := range cfg.Bundles {
		if v, ok := bundleVersion(b.Properties); ok {
			versions[[2]string{b.Package, b.Name}] = v
		}
	}
	deps := deprecations(cfg.Deprecations)
	for i := range cfg.Channels {
		c := &cfg.Channels[i]
		if (o.pkg != "" && c.Package != o.pkg) || (o.channel != "" && c.Name != o.channel) {
			continue
		}
		p := get(c.Package)
		p.Channels = append(p.Channels, buildChannel(c, p.DefaultChannel, versions, deps))
	}
	for _, p := range pkgs {
		p.Deprecation = deps[depKey{p.Name, declcfg.SchemaPackage, ""}]
		sort.SliceStable(p.Channels, func(i, j int) bool { return p.Channels[i].Name < p.Channels[j].Name })
		if o.channel != "" && len(p.Channels) == 0 {
			continue
		}
		b.g.Packages = append(b.g.Packages, p)
	}
}

// Graph returns the graph of every part added, packages sorted by name.
// It fails when a selected package or channel does not exist.
func (b *Builder) Graph() (*Graph, error) {
	g := &Graph{Packages: b.g.Packages}
	sort.Slice(g.Packages, func(i, j int) bool { return g.Packages[i].Name < g.Packages[j].Name })
	switch {
	case b.o.pkg != "" && len(g.Packages) == 0:
		return nil, fmt.Errorf("package %q not found", b.o.pkg)
	case b.o.channel != "" && len(g.Packages) == 0:
		return nil, fmt.Errorf("channel %q not found", b.o.channel)
	}
	return g, nil
}

// depKey names a deprecated package, channel or bundle.
type depKey struct{ pkg, schema, name string }

func deprecations(ds []declcfg.Deprecation) map[depKey]string {
	out := map[depKey]string{}
	for _, d := range ds {
		for _, e := range d.Entries {
			out[depKey{d.Package, e.Reference.Schema, e.Reference.Name}] = e.Message
		}
	}
	return out
}

// bundleVersion reads the version of a bundle's olm.package property:
// the first one only, so a bundle whose first olm.package does not
// decode (which opm's model refuses) has no version in the graph.
func bundleVersion(props []declcfg.Property) (semver.Version, bool) {
	for v, err := range declcfg.PackageValues(props) {
		if err != nil {
			break
		}
		ver, err := semver.Parse(v.Version)
		return ver, err == nil
	}
	return semver.Version{}, false
}

// buildChannel analyses one channel and derives its nodes and edges.
func buildChannel(c *declcfg.Channel, defaultChannel string, versions map[[2]string]semver.Version, deps map[depKey]string) *Channel {
	ch := &Channel{Package: c.Package, Name: c.Name, Default: c.Name == defaultChannel, Entries: c.Entries,
		Deprecation: deps[depKey{c.Package, declcfg.SchemaChannel, c.Name}]}
	nodes := map[string]*Node{}
	entries := make([]model.GraphEntry, 0, len(c.Entries))
	for _, e := range c.Entries {
		if nodes[e.Name] != nil {
			continue // a duplicate entry: validation reports it
		}
		n := &Node{Name: e.Name, Deprecation: deps[depKey{c.Package, declcfg.SchemaBundle, e.Name}]}
		n.version, n.hasVersion = versions[[2]string{c.Package, e.Name}]
		if n.hasVersion {
			n.Version = n.version.String()
		}
		nodes[e.Name] = n
		ch.Nodes = append(ch.Nodes, n)
		entries = append(entries, model.GraphEntry{Name: e.Name, Replaces: e.Replaces, Skips: e.Skips,
			SkipRange: e.SkipRange, Version: n.version, HasVersion: n.hasVersion})
	}
	an := model.AnalyzeChannel(entries)
	ch.Head, ch.Findings = an.Head, an.Findings
	if n := nodes[an.Head]; n != nil {
		n.Head = true
	}
	absent := func(name string) {
		if nodes[name] == nil {
			n := &Node{Name: name, Absent: true}
			nodes[name] = n
			ch.Nodes = append(ch.Nodes, n)
		}
	}
	for _, e := range entries {
		if e.Replaces != "" {
			absent(e.Replaces)
			ch.Edges = append(ch.Edges, Edge{From: e.Replaces, To: e.Name, Kind: EdgeReplaces})
		}
		for _, s := range e.Skips {
			if s != "" {
				absent(s)
				ch.Edges = append(ch.Edges, Edge{From: s, To: e.Name, Kind: EdgeSkips})
			}
		}
		for _, t := range an.SkipRangeTargets[e.Name] {
			ch.Edges = append(ch.Edges, Edge{From: t, To: e.Name, Kind: EdgeSkipRange, Range: e.SkipRange})
		}
	}
	markProblems(ch, nodes)
	orderNodes(ch)
	return ch
}

// markProblems attaches every finding to the nodes and edges it involves.
func markProblems(ch *Channel, nodes map[string]*Node) {
	mark := func(name string, k model.GraphFindingKind) {
		n := nodes[name]
		if n == nil {
			return
		}
		for _, have := range n.Problems {
			if have == k {
				return
			}
		}
		n.Problems = append(n.Problems, k)
	}
	for _, f := range ch.Findings {
		switch f.Kind {
		case model.GraphMissingReplaces, model.GraphMissingSkips:
			kind := EdgeReplaces
			if f.Kind == model.GraphMissingSkips {
				kind = EdgeSkips
			}
			mark(f.Nodes[0], f.Kind)
			for i := range ch.Edges {
				if e := &ch.Edges[i]; e.Kind == kind && e.To == f.Entry && e.From == f.Nodes[0] {
					e.Problem = f.Kind
				}
			}
		case model.GraphCycle:
			for i, n := range f.Nodes {
				mark(n, f.Kind)
				if i == 0 {
					continue
				}
				for j := range ch.Edges {
					if e := &ch.Edges[j]; e.Kind == EdgeReplaces && e.To == f.Nodes[i-1] && e.From == n {
						e.Problem = f.Kind
					}
				}
			}
		case model.GraphNoHead:
			for _, n := range ch.Nodes {
				mark(n.Name, f.Kind)
			}
		default:
			if f.Entry != "" {
				mark(f.Entry, f.Kind)
			}
			for _, n := range f.Nodes {
				mark(n, f.Kind)
			}
		}
	}
}

// orderNodes sorts the nodes left to right by version. A bundle without a
// known version (an absent one) goes just before the oldest entry that
// names it, so its edges stay short.
func orderNodes(ch *Channel) {
	known := make([]*Node, 0, len(ch.Nodes))
	for _, n := range ch.Nodes {
		if n.hasVersion {
			known = append(known, n)
		}
	}
	sort.SliceStable(known, func(i, j int) bool {
		if c := known[i].version.Compare(known[j].version); c != 0 {
			return c < 0
		}
		return known[i].Name < known[j].Name
	})
	rank := map[string]float64{}
	for i, n := range known {
		rank[n.Name] = float64(i)
	}
	const unplaced = 1e18
	for _, n := range ch.Nodes {
		if n.hasVersion {
			continue
		}
		r := unplaced
		for _, e := range ch.Edges {
			if e.From == n.Name {
				if to, ok := rank[e.To]; ok && to-0.5 < r {
					r = to - 0.5
				}
			}
		}
		rank[n.Name] = r
	}
	sort.SliceStable(ch.Nodes, func(i, j int) bool {
		a, b := ch.Nodes[i], ch.Nodes[j]
		if rank[a.Name] != rank[b.Name] {
			return rank[a.Name] < rank[b.Name]
		}
		return a.Name < b.Name
	})
}

// HasProblems says whether any channel of the graph has a finding.
func (g *Graph) HasProblems() bool {
	for _, p := range g.Packages {
		for _, c := range p.Channels {
			if len(c.Findings) > 0 {
				return true
			}
		}
	}
	return false
}
