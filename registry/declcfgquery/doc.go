// Package declcfgquery answers the registry API (registry.Querier) from a
// declarative config catalog, the way `opm serve` does: heads computed
// from the graph, manifests and csv metadata served as csvJson/object,
// dependencies and APIs derived from properties, deprecations attached.
//
// Memory: the Querier holds an index of the catalog's metadata, never its
// manifests. Load validates the directory package by package
// (model.ValidateDir with WithModels) reading it lean (model.WithLeanBundles): every
// blob and every bundle object is checked as a full load checks it, so a
// catalog that does not load or validate fails with the same error, but
// each object is dropped once checked and each package's model once
// indexed. The index holds every string once per package in one string
// table, and records of numbers into it: the catalog's distinct APIs and
// dependencies once, each package's distinct properties once, per bundle
// its names, image and the run of its property numbers (shared by the
// bundles of a package that list the same properties) and where its blob
// is, and per channel membership its channel, edges and deprecation; the
// answers of the edge and provider RPCs are indexed at build time (no
// call scans the catalog). An answer that includes
// manifests (csvJson, object) reads that bundle's blob again from its
// byte range in its file, after checking that the file has not changed
// since it was loaded (a changed file fails the call instead of serving
// other content); recently read manifests are kept in a bounded LRU.
//
// With a cache directory (WithCacheDir) Load restores the index from a
// verified cache instead of reading the catalog: olmcat's snapshot (no
// manifests: they are read from the catalog files as without a cache),
// or opm v1.73's serve cache, whose JSON format it also writes so that
// opm serve --cache-dir starts from what olmcat built.
package declcfgquery
