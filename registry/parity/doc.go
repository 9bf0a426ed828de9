// Package parity checks that two catalogs answer the operator-registry
// gRPC API (api.Registry) the same way, RPC by RPC.
//
// Each side is a legacy sqlite index, a declarative config directory or a
// live server (grpc://host:port). A local side is answered by the registry
// server olmcat serve uses, called in process (an answer the wire could
// not carry becomes grpc's error, as over the wire), or with WithLoopback
// served on real loopback TCP; both sides are queried only through
// api.RegistryClient.
//
// A check runs package by package: each side's ListBundles answer is
// spilled to a temporary file and read back one package at a time, the
// calls about a package are made and compared together, and the outcome
// is aggregated as it comes (statistics, counts, a bounded number of kept
// differences, and Reports that see every difference), so memory does not
// grow with the catalog.
//
// Check enumerates every RPC over everything either catalog contains
// (packages, channels, bundles, replaced and skipped names, provided and
// required GVKs) plus not-found probes, compares the answers as data (sets
// where the API is unordered, JSON values parsed), and classifies every
// difference: a loss (data the right side does not serve as the left side
// did), or a known benign difference between the sqlite and the
// declarative config servers, each named by a Rule that cites the
// registry gRPC reference. The package owns that classification and the
// Result it produces; the Reports (and PackageReports) it feeds while the
// check runs are how a caller writes the outcome in its own formats.
//
// CheckBlobs compares two catalogs as OLM v1's catalogd serves them
// instead: blob by blob (named by schema, package and name, compared as
// JSON, lists as multisets), then the order of /api/v1/all. A side is a
// catalogd server (catalogdhttp.Remote), local files as catalogd would
// serve them, or a catalog rebuilt from the registry gRPC API
// (GRPCSide: OLM v0's view); each is encoded as catalogd stores it into
// a temporary file first, so again only an index of offsets is in
// memory. Its rules name what OLM v1 reads that OLM v0 never sees.
package parity
