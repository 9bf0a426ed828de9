// Package legacyquery answers the operator-registry gRPC API (the
// registry.Querier interface) from a legacy sqlite index read with the
// legacy package, the way `opm registry serve` answered it: same data,
// same error texts, the same quirks of the sqlite queries (synthetic skip
// edges, nearest-to-head providers, DISTINCT rows, plural filled from the
// api table, manifests omitted from ListBundles for image bundles).
//
// New reads every package once into a small in-memory index of the
// catalog's metadata (packages, channels, channel entries, bundle columns,
// properties, dependencies). Bundle manifests (the csv and bundle columns)
// are not held: GetBundle and friends fetch them from the database per
// call (keeping only a 16 MiB LRU of recently split columns, which a
// channel-by-channel walk hits half the time), so memory stays
// proportional to the metadata, not to the CSVs.
//
// Where the sqlite server's answer depended on the query planner (LIMIT 1
// or GROUP BY without ORDER BY), the Querier makes a documented,
// deterministic choice; see the method docs. Lists whose order sqlite left
// unspecified come in a stable order: ListPackages sorted, GetPackage
// channels by name, ListBundles by (bundle, package, channel), entry
// streams by entry_id.
//
// The index is built from the legacy reader, which repairs known damage;
// the Querier serves the repaired values and lists the repairs in
// Querier.Repairs. Differences from `opm registry serve` that follow:
//   - a NULL operatorbundle.version is served as the version the reader
//     took from the CSV, and a NULL bundlepath as ""; opm's ListBundles
//     silently dropped such rows, here they are listed;
//   - a package whose default_channel names no channel gets the reader's
//     repaired default channel (GetPackage, GetDefaultBundleThatProvides);
//     opm served the dangling name;
//   - duplicate properties/dependencies rows are served once in every RPC
//     (opm's GetBundle providedApis could repeat a duplicated olm.gvk row);
//   - at schema levels that lack columns or tables (properties,
//     dependencies, replaces, skips, version, ...) the reader's derived
//     values are served, where opm would first have migrated a copy.
package legacyquery
