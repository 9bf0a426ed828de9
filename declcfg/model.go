package declcfg

import (
	"fmt"
	"sort"
	"strings"

	"github.com/blang/semver/v4"
)

// Model is the linked, validated form of a catalog: packages own channels,
// channels own their bundles (one ModelBundle per channel membership, as
// the registry API serves them). It is built by ConvertToModel and is what
// the registry server answers from.
type Model struct {
	Packages map[string]*ModelPackage
}

// ModelPackage is a package with its channels.
type ModelPackage struct {
	Name           string
	Description    string
	Icon           *Icon
	DefaultChannel *ModelChannel
	Channels       map[string]*ModelChannel
	// Deprecation is the package-level deprecation message, if any.
	Deprecation string

	// Origin is where the olm.package blob was read from (zero when the
	// model was built from another source).
	Origin Origin
}

// ModelChannel is a channel with its bundles, keyed by bundle name.
type ModelChannel struct {
	Package *ModelPackage
	Name    string
	Bundles map[string]*ModelBundle
	// Deprecation is the channel-level deprecation message, if any.
	Deprecation string

	// Origin is where the olm.channel blob was read from (zero when the
	// model was built from another source).
	Origin Origin
}

// ModelBundle is one bundle's membership in one channel: the bundle's data
// plus that channel entry's edges.
type ModelBundle struct {
	Package   *ModelPackage
	Channel   *ModelChannel
	Name      string
	Image     string
	Replaces  string
	Skips     []string
	SkipRange string

	Properties    []Property
	RelatedImages []RelatedImage
	CsvJSON       string
	Objects       []string

	// Version is the parsed olm.package version.
	Version semver.Version
	// Deprecation is the bundle-level deprecation message, if any.
	Deprecation string

	// Origin is where the olm.bundle blob was read from.
	Origin Origin
}

// Head returns the channel head: the one bundle that no other bundle of the
// channel replaces or skips. It fails when there is none or more than one.
func (c *ModelChannel) Head() (*ModelBundle, error) {
	incoming := make(map[string]int, len(c.Bundles))
	for _, b := range c.Bundles {
		if b.Replaces != "" {
			incoming[b.Replaces]++
		}
		for _, s := range b.Skips {
			incoming[s]++
		}
	}
	var heads []*ModelBundle
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
		return nil, fmt.Errorf("package %q, channel %q: multiple channel heads found in graph: %s", c.Package.Name, c.Name, strings.Join(names, ", "))
	}
}
