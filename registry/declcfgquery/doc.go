// Package declcfgquery answers the registry API (registry.Querier) from a
// declarative config catalog, the way `opm serve` does: it converts the
// validated declcfg.Model into api messages once (heads computed from the
// graph, manifests and csv metadata served as csvJson/object, dependencies
// and APIs derived from properties, deprecations attached) and serves every
// RPC from those prepared messages. Load adds an optional on-disk snapshot
// of the prepared messages so a large catalog starts fast the second time.
//
// Memory: the answers of the edge and provider RPCs are indexed at build
// time (no call scans the catalog), a bundle's manifests are held once
// however many channels it is in, and Load returns its loading peak to
// the OS. With a snapshot the Querier does not hold manifests at all: it
// reads a bundle's record back from the verified snapshot when an answer
// includes them (the 10,000-bundle benchmark catalog: ~48 MiB of heap
// instead of ~212 MiB, for ~40 us more per GetBundle).
package declcfgquery
