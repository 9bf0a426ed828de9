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
// call, so memory stays proportional to the metadata, not to the CSVs.
//
// Where the sqlite server's answer depended on the query planner (LIMIT 1
// or GROUP BY without ORDER BY), the Querier makes a documented,
// deterministic choice; see the method docs.
package legacyquery
