package legacy

import "github.com/operator-catalog/olmcat/internal/manifest"

// Package is a row of the package table.
type Package struct {
	Name           string
	DefaultChannel string
}

// Channel is a row of the channel table.
type Channel struct {
	Name    string
	Package string
	// Head is channel.head_operatorbundle_name, as stored.
	Head string
}

// ChannelEntry is a row of the channel_entry table.
type ChannelEntry struct {
	ID      int64
	Channel string
	Package string
	Bundle  string
	// Replaces is the entry_id this entry replaces; 0 when NULL.
	Replaces int64
	Depth    int64
}

// API is a group/version/kind with its plural, from the api table.
type API = manifest.API

// Property is a row of the properties table (or one derived for levels
// that predate it). Value is the JSON text as stored.
type Property struct {
	Type  string
	Value string
}

// Dependency is a row of the dependencies table (or one derived for
// levels that predate it). Value is the JSON text as stored.
type Dependency struct {
	Type  string
	Value string
}

// Bundle is a row of operatorbundle with everything keyed to it.
type Bundle struct {
	Name string
	// CSV is the csv column (CSV JSON), nil when NULL (non-head bundles
	// of image-built indexes).
	CSV []byte
	// Objects are the manifests of the bundle column split into one JSON
	// document each, in stored order; nil when the column is NULL.
	Objects [][]byte
	// BundlePath is the bundle image pull spec; "" for bundles loaded
	// from directories (and for rows that predate the column, level < 2).
	BundlePath string
	// Version is the version column, or (column missing or NULL) the CSV's
	// spec.version, the olm.package property's version or the version in
	// the bundle name, in that order; every fallback is reported.
	Version string
	// SkipRange is the skiprange column or the CSV's olm.skipRange annotation.
	SkipRange string
	// Replaces and Skips are the bundle's own edges as its CSV declares
	// them (the replaces/skips columns, else the CSV, else the real-chain
	// and synthetic skip entries of channel_entry). The per-channel graph
	// is in PackageData.Entries.
	Replaces string
	Skips    []string
	// SubstitutesFor is the substitutesfor column or the CSV annotation
	// olm.substitutesFor.
	SubstitutesFor string

	// Properties and Dependencies are deduplicated rows in stored order.
	Properties   []Property
	Dependencies []Dependency
	// RelatedImages are related_image rows (pull specs, no names), deduplicated, in stored order.
	RelatedImages []string
	// ProvidedAPIs and RequiredAPIs are the api_provider/api_requirer rows
	// of the bundle (with plurals from the api table), deduplicated; derived
	// from the manifests where the level lacks them.
	ProvidedAPIs []API
	RequiredAPIs []API
	// Deprecated is true when the bundle is in the deprecated table or
	// carries an olm.deprecated property.
	Deprecated bool
	// Unreadable lists the row's csv or bundle column values that do not
	// decode. The reader goes on without them (nothing is derived from
	// an unreadable CSV); callers decide whether the bundle can be kept.
	Unreadable []Unreadable
}

// Unreadable is an operatorbundle column value that does not decode.
type Unreadable struct {
	// Column is "csv" or "bundle".
	Column string `json:"column"`
	// Err says why it does not decode.
	Err error `json:"-"`
}

// unreadableError is a csv or bundle column value that does not decode.
type unreadableError struct {
	column string
	err    error
}

func (e *unreadableError) Error() string { return e.column + " column: " + e.err.Error() }
func (e *unreadableError) Unwrap() error { return e.err }

// PackageData is everything the database holds for one package.
type PackageData struct {
	// Package is the package row; DefaultChannel is already repaired when
	// it named no channel (see RepairMissingDefaultChannel).
	Package Package
	// Channels are the package's channel rows, ordered by name.
	Channels []Channel
	// Entries are the package's channel_entry rows ordered by entry_id.
	Entries []ChannelEntry
	// TipDepth is the minimum depth over the whole channel_entry table,
	// not just this package's: opm's listBundlesQuery starts the real
	// replaces chain at the entries of that depth. It is 0 for databases
	// every current add mode wrote; loaders that put channel heads at
	// depth 1 left tables whose minimum is 1.
	TipDepth int64
	// Bundles are the operatorbundle rows named by the package's channel
	// entries, ordered by name. Names in Entries without a row (skipped
	// or replaced bundles absent from the database) have no Bundle.
	Bundles []Bundle
	// Stranded are bundles of this package (by olm.package property or
	// CSV) that no channel entry names.
	Stranded []Bundle
	// Repairs are the repairs made while reading this package.
	Repairs []Repair
}

// RepairKind names a kind of known damage.
type RepairKind string

// Kinds of known damage the reader repairs or reports.
const (
	// RepairNullNameRows: migration-5 junk rows with NULL name, ignored.
	RepairNullNameRows RepairKind = "null-name-rows"
	// RepairNullVersion: a bundle row with NULL version; taken from the CSV.
	RepairNullVersion RepairKind = "null-version"
	// RepairCorruptDependencies: migration-9 overwrote every dependency value
	// with one value; re-derived from the CSV/api tables where possible.
	RepairCorruptDependencies RepairKind = "corrupt-dependencies"
	// RepairMissingManifests: a non-head bundle with NULL csv/bundle.
	RepairMissingManifests RepairKind = "missing-manifests"
	// RepairMissingDefaultChannel: default_channel names a channel that does not exist.
	RepairMissingDefaultChannel RepairKind = "missing-default-channel"
	// RepairNullPropertyPath: property rows keyed by NULL path while bundlepath is ''.
	RepairNullPropertyPath RepairKind = "null-property-path"
	// RepairDerived: columns or tables the schema level lacks, computed from CSV and channel_entry.
	RepairDerived RepairKind = "derived"
	// RepairStranded: a bundle no channel entry names.
	RepairStranded RepairKind = "stranded-bundle"
	// RepairDuplicateRows: duplicate properties/dependencies rows collapsed.
	RepairDuplicateRows RepairKind = "duplicate-rows"
	// RepairOrphanRows: rows keyed to a package or bundle that has no row
	// of its own (left behind by opm index prune, rm or hand edits); ignored.
	RepairOrphanRows RepairKind = "orphan-rows"
)

// Repair is one piece of known damage found in the database and what the
// reader did about it. Nothing is repaired silently.
type Repair struct {
	Kind    RepairKind `json:"kind"`
	Table   string     `json:"table"`
	Package string     `json:"package,omitempty"`
	Bundle  string     `json:"bundle,omitempty"`
	// Detail says what was found and what was done, in one sentence.
	Detail string `json:"detail"`
}

// tables are the rows of the bundle-keyed tables, by bundle name: all of
// them for an eager DB, one package's for a lazy ReadPackage.
type tables struct {
	rows       map[string]bundleKey // operatorbundle rows by name
	props      map[string][]propRow
	deps       map[string][]Dependency
	related    map[string][]string
	provided   map[string][]API
	required   map[string][]API
	deprecated map[string]bool
}
