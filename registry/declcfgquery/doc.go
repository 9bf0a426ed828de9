// Package declcfgquery answers the registry API (registry.Querier) from a
// declarative config catalog, the way `opm serve` does: it converts the
// validated declcfg.Model into api messages once (heads computed from the
// graph, manifests and csv metadata served as csvJson/object, dependencies
// and APIs derived from properties, deprecations attached) and serves every
// RPC from those prepared messages. Load adds an optional on-disk snapshot
// of the prepared messages so a large catalog starts fast the second time.
package declcfgquery
