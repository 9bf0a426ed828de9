// Package v1check owns the answer to "can OLM v1 install this package?":
// what operator-controller v1.11.0 does with a catalog for a default
// ClusterExtension (a package name, no version, no channels, the
// standard feature set), package by package, from the declarative
// config alone.
//
// For each package it finds the bundle operator-controller would pick
// (Pick: the highest version and release of all the package's bundles,
// deprecated bundles last) beside the one OLM v0 resolves (the head of
// the default channel), the reasons the install would be refused, each a
// typed Rule with a stable name and the source it follows, the upgrade
// edges OLM v1 no longer follows, and the deprecations as OLM v1
// surfaces them. Check takes one package's blobs (as declcfg.EachPackage
// and migrate.Each hand them over), so a caller holds one package at a
// time; Across adds what only several catalogs show (the same package in
// catalogs of equal priority).
//
// The facts it follows are those of operator-controller v1.11.0 and
// operator-registry v1.73.0 (the version operator-controller pins);
// each Rule's Source names the file. What needs the bundle's CSV (its
// webhooks; its install modes when the catalog has no olm.csv.metadata)
// is reported as unknown unless the catalog carries the CSV (an
// olm.bundle.object) or the caller fetches it (WithCSVFetcher).
package v1check
