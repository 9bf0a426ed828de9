// Package declcfgquery answers the registry API (registry.Querier) from a
// declarative config catalog, the way `opm serve` does: it converts the
// validated declcfg.Model into api messages once (heads computed from the
// graph, manifests and csv metadata served as csvJson/object, dependencies
// and APIs derived from properties, deprecations attached) and serves every
// RPC from those prepared messages. Load adds an optional on-disk snapshot
// of the prepared messages so a large catalog starts fast the second time.
//
// Memory: the answers of the edge and provider RPCs are indexed at build
// time (no call scans the catalog) and a bundle's manifests are never held.
// Without a cache, Load validates and indexes the catalog package by
// package (declcfg.LoadDirModels), so no more than a package's blobs are
// decoded at a time, and keeps for each bundle only where its blob is:
// an answer that includes manifests (csvJson, object) decodes that blob
// again from its file, after checking that the file has not changed since
// it was loaded (a changed file fails the call instead of serving other
// content). With a cache directory the Querier reads a bundle's record
// back from the verified snapshot instead, which saves the decode.
package declcfgquery
