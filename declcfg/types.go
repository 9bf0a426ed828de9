package declcfg

import (
	"encoding/json"
	"fmt"
)

// Schema names of the blobs this package understands. Blobs of any other
// schema are kept verbatim in DeclarativeConfig.Others.
const (
	SchemaPackage      = "olm.package"
	SchemaChannel      = "olm.channel"
	SchemaBundle       = "olm.bundle"
	SchemaDeprecations = "olm.deprecations"
)

// DeclarativeConfig is a set of blobs, grouped by schema. The order of each
// slice is the order the blobs were read or built in; writers sort.
type DeclarativeConfig struct {
	Packages     []Package
	Channels     []Channel
	Bundles      []Bundle
	Deprecations []Deprecation
	Others       []Meta
}

// Merge appends every blob of other to c.
func (c *DeclarativeConfig) Merge(other *DeclarativeConfig) {
	c.Packages = append(c.Packages, other.Packages...)
	c.Channels = append(c.Channels, other.Channels...)
	c.Bundles = append(c.Bundles, other.Bundles...)
	c.Deprecations = append(c.Deprecations, other.Deprecations...)
	c.Others = append(c.Others, other.Others...)
}

// Origin says where a blob was read from, so that errors can name it.
// The zero Origin means the blob was built in memory.
type Origin struct {
	// File is the slash-separated path of the file, relative to the
	// catalog root.
	File string
	// Index is the 0-based position of the blob in its file's stream.
	Index int
}

// String renders the origin as "file#index", or "" for a built blob.
func (o Origin) String() string {
	if o.File == "" {
		return ""
	}
	return fmt.Sprintf("%s#%d", o.File, o.Index)
}

// Package is an olm.package blob.
type Package struct {
	Schema         string     `json:"schema"`
	Name           string     `json:"name"`
	DefaultChannel string     `json:"defaultChannel,omitempty"`
	Icon           *Icon      `json:"icon,omitempty"`
	Description    string     `json:"description,omitempty"`
	Properties     []Property `json:"properties,omitempty"`

	Origin Origin `json:"-"`
}

// Icon is a package icon. Data holds the decoded bytes; JSON carries them
// base64-encoded in "base64data".
type Icon struct {
	Data      []byte `json:"base64data"`
	MediaType string `json:"mediatype"`
}

// Channel is an olm.channel blob: the upgrade graph of one channel.
type Channel struct {
	Schema     string         `json:"schema"`
	Name       string         `json:"name"`
	Package    string         `json:"package"`
	Entries    []ChannelEntry `json:"entries"`
	Properties []Property     `json:"properties,omitempty"`

	Origin Origin `json:"-"`
}

// ChannelEntry is one bundle's membership in a channel with its edges.
type ChannelEntry struct {
	Name      string   `json:"name"`
	Replaces  string   `json:"replaces,omitempty"`
	Skips     []string `json:"skips,omitempty"`
	SkipRange string   `json:"skipRange,omitempty"`
}

// Bundle is an olm.bundle blob. Image and relatedImage names are always
// emitted (possibly empty), as opm does.
type Bundle struct {
	Schema        string         `json:"schema"`
	Name          string         `json:"name"`
	Package       string         `json:"package"`
	Image         string         `json:"image"`
	Properties    []Property     `json:"properties,omitempty"`
	RelatedImages []RelatedImage `json:"relatedImages,omitempty"`

	// CsvJSON and Objects are filled by the loader from olm.bundle.object
	// properties (decoded data or resolved ref): each object as compact
	// JSON; CsvJSON is the ClusterServiceVersion among them. They are not
	// part of the blob's JSON.
	CsvJSON string   `json:"-"`
	Objects []string `json:"-"`

	Origin Origin `json:"-"`
}

// RelatedImage is an image a bundle needs, by name and pull spec.
type RelatedImage struct {
	Name  string `json:"name"`
	Image string `json:"image"`
}

// Property is a typed property; Value is a JSON document.
type Property struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

// Deprecation is an olm.deprecations blob: deprecation messages for a
// package, its channels and its bundles.
type Deprecation struct {
	Schema  string             `json:"schema"`
	Package string             `json:"package"`
	Entries []DeprecationEntry `json:"entries"`

	Origin Origin `json:"-"`
}

// DeprecationEntry deprecates the object named by Reference.
type DeprecationEntry struct {
	Reference PackageScopedReference `json:"reference"`
	Message   string                 `json:"message"`
}

// PackageScopedReference names an olm.package (empty Name), olm.channel or
// olm.bundle within the deprecation's package.
type PackageScopedReference struct {
	Schema string `json:"schema"`
	Name   string `json:"name,omitempty"`
}

// Meta is a blob of any schema, kept verbatim. Schema, Package and Name are
// read from the blob for grouping and messages; Blob is the whole document.
type Meta struct {
	Schema  string
	Package string
	Name    string
	Blob    json.RawMessage

	Origin Origin
}

// MarshalJSON returns the blob as it was read.
func (m Meta) MarshalJSON() ([]byte, error) { return m.Blob, nil }
