package model

import (
	"fmt"
	"sort"

	"github.com/blang/semver/v4"

	"github.com/operator-catalog/olmcat/declcfg"
)

// Model is the linked, validated form of a catalog: packages own channels,
// channels own their bundles (one Bundle per channel membership, as
// the registry API serves them). It is built by FromDeclcfg and is what
// the registry server answers from.
type Model struct {
	Packages map[string]*Package
}

// Package is a package with its channels.
type Package struct {
	Name           string
	Description    string
	Icon           *declcfg.Icon
	DefaultChannel *Channel
	Channels       map[string]*Channel
	// Deprecation is the package-level deprecation message, if any.
	Deprecation string

	// Origin is where the olm.package blob was read from (zero when the
	// model was built from another source).
	Origin declcfg.Origin
}

// Channel is a channel with its bundles, keyed by bundle name.
type Channel struct {
	Package *Package
	Name    string
	Bundles map[string]*Bundle
	// Deprecation is the channel-level deprecation message, if any.
	Deprecation string

	// Origin is where the olm.channel blob was read from (zero when the
	// model was built from another source).
	Origin declcfg.Origin
}

// Bundle is one bundle's membership in one channel: the bundle's data
// plus that channel entry's edges.
type Bundle struct {
	Package   *Package
	Channel   *Channel
	Name      string
	Image     string
	Replaces  string
	Skips     []string
	SkipRange string

	Properties    []declcfg.Property
	RelatedImages []declcfg.RelatedImage
	CsvJSON       string
	Objects       []string

	// Version is the parsed olm.package version.
	Version semver.Version
	// Deprecation is the bundle-level deprecation message, if any.
	Deprecation string

	// Origin is where the olm.bundle blob was read from.
	Origin declcfg.Origin
}

// Head returns the channel head: the one bundle that no other bundle of the
// channel replaces or skips. It fails when there is none or more than one.
func (c *Channel) Head() (*Bundle, error) {
	incoming := make(map[string]int, len(c.Bundles))
	for _, b := range c.Bundles {
		if b.Replaces != "" {
			incoming[b.Replaces]++
		}
		for _, s := range b.Skips {
			incoming[s]++
		}
	}
	var heads []*Bundle
	for _, b := range c.Bundles {
		if incoming[b.Name] == 0 {
			heads = append(heads, b)
		}
	}
	switch len(heads) {
	case 0:
		return nil, fmt.Errorf("package %q, channel %q: no channel head found in graph", c.Package.Name, c.Name)
	case 1:
		return heads[0], nil
	default:
		names := make([]string, 0, len(heads))
		for _, h := range heads {
			names = append(names, h.Name)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("package %q, channel %q: multiple channel heads found in graph: %s", c.Package.Name, c.Name, joinNames(names, ", "))
	}
}
