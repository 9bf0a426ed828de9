// Package indexop applies the operations of opm v1.73's sqlite-era
// commands (index add|rm|prune|prune-stranded, registry add|rm|prune|
// prune-stranded) to declarative config catalogs, one package at a time:
// the result is the catalog opm migrate would make of the database opm
// would have produced, except where opm was nondeterministic or lost
// data (each such difference is listed in MIGRATION.md).
//
// Adding bundles follows the three graph update modes of opm's --mode:
// replaces (the package's channels recomputed from the CSVs' replaces
// and skips, heads by version, default channel from the highest bundle),
// semver and semver-skippatch (each bundle inserted by version into the
// channels of its annotations). With WithEnableAlpha, replaces mode
// applies the CSVs' olm.substitutesFor as opm's --enable-alpha did.
// Every function works on the blobs of one
// package and either returns the whole new package or an error; nothing
// is half applied.
//
// The commands' operations over a whole catalog are Ops (RemoveOp,
// PruneOp, PruneStrandedOp, DeprecateOp, BundleAdd), which Run streams
// package by package from a Source (a catalog directory, a sqlite index
// read through migrate: the caller picks the reader) into a catalog
// directory written atomically. They tell what they do through a notes
// function, one line per call. ExportPackage writes a package in opm's
// appregistry layout (index export).
package indexop
