package indexop

import (
	"fmt"
	"slices"

	"github.com/blang/semver/v4"

	"github.com/operator-catalog/olmcat/bundle"
	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/internal/quote"
)

// NewBundle is a bundle to add: its olm.bundle blob (bundle.FromFS)
// and the metadata it was read with.
type NewBundle struct {
	Bundle declcfg.Bundle
	Meta   bundle.Metadata
}

// BundleError is an error about one bundle being added; Add returns it
// so that a caller can leave that bundle out and try again (opm's
// --permissive).
type BundleError struct {
	Bundle string // the bundle's name
	Image  string // its image, "" for a bundle directory
	Err    error
}

func (e *BundleError) Error() string { return e.Err.Error() }
func (e *BundleError) Unwrap() error { return e.Err }

// bundleErr is a BundleError about b. Its string arguments are names
// (of bundles, channels, packages, images): each is quoted when it could
// forge output (internal/quote).
func bundleErr(b *node, format string, args ...any) error {
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = quote.Name(s)
		}
	}
	return &BundleError{Bundle: b.name, Image: b.blob.Image, Err: fmt.Errorf(format, args...)}
}

// node is one bundle of the package as opm's database held it: the
// columns the graph is computed from.
type node struct {
	blob      *declcfg.Bundle
	name      string
	version   semver.Version
	replaces  string
	skips     []string
	skipRange string
	// channels are the channels the bundle is in (an existing bundle:
	// every channel with an entry of it; a new one: its annotation).
	channels []string
	// defaultChannel is the default channel it proposes (a new bundle:
	// its annotation; an existing one: the package's default).
	defaultChannel string
	isNew          bool
	// substitutesFor is the bundle its CSV's olm.substitutesFor names
	// (read only with --enable-alpha).
	substitutesFor string
}

// existingNodes reads the bundles of pkg. The edges of a bundle are those
// of its entries on a replaces chain (the database's replaces and skips
// columns, as opm rendered them); a bundle that is only ever a skip
// target gets them from its CSV, where opm's columns came from.
func existingNodes(pkg *declcfg.DeclarativeConfig, defaultChannel string) ([]*node, map[string]*node) {
	byName := map[string]*node{}
	var nodes []*node
	for i := range pkg.Bundles {
		b := &pkg.Bundles[i]
		n := &node{blob: b, name: b.Name, version: bundleVersion(b), defaultChannel: defaultChannel}
		byName[b.Name] = n
		nodes = append(nodes, n)
	}
	hasEdges := map[string]bool{}
	for _, ch := range pkg.Channels {
		for _, e := range ch.Entries {
			n := byName[e.Name]
			if n == nil {
				continue
			}
			if !slices.Contains(n.channels, ch.Name) {
				n.channels = append(n.channels, ch.Name)
			}
			if n.skipRange == "" {
				n.skipRange = e.SkipRange
			}
			if e.Replaces == "" && len(e.Skips) == 0 || hasEdges[e.Name] {
				continue
			}
			hasEdges[e.Name] = true
			n.replaces, n.skips = e.Replaces, slices.Clone(e.Skips)
		}
	}
	for _, n := range nodes {
		if hasEdges[n.name] || n.blob.CsvJSON == "" {
			continue
		}
		if csv, err := manifest.ParseCSV([]byte(n.blob.CsvJSON)); err == nil {
			n.replaces, _ = csv.Replaces()
			n.skips, _ = csv.Skips()
			if n.skipRange == "" {
				n.skipRange = csv.Annotation("olm.skipRange")
			}
		}
	}
	return nodes, byName
}

// newNode reads a bundle being added: edges from its CSV, channels and
// default channel from its annotations.
func newNode(nb *NewBundle, o options) (*node, error) {
	b := &nb.Bundle
	n := &node{blob: b, name: b.Name, version: bundleVersion(b), isNew: true,
		channels: nb.Meta.Channels(), defaultChannel: nb.Meta.DefaultChannel()}
	csv, err := manifest.ParseCSV([]byte(b.CsvJSON))
	if err != nil {
		return nil, bundleErr(n, "bundle %s: CSV: %w", b.Name, err)
	}
	if n.replaces, err = csv.Replaces(); err != nil {
		return nil, bundleErr(n, "bundle %s: %w", b.Name, err)
	}
	if n.skips, err = csv.Skips(); err != nil {
		return nil, bundleErr(n, "bundle %s: %w", b.Name, err)
	}
	n.skipRange = csv.Annotation("olm.skipRange")
	if n.substitutesFor = csv.Annotation(annotationSubstitutesFor); n.substitutesFor != "" && !o.enableAlpha {
		return nil, bundleErr(n, "bundle %s: SubstitutesFor is an alpha-only feature. You must enable alpha features with the flag --enable-alpha in order to use this feature.", b.Name)
	}
	if len(n.channels) == 0 {
		return nil, bundleErr(n, "bundle %s: the annotations name no channel (%s)", b.Name, annotation.Channels)
	}
	return n, nil
}
