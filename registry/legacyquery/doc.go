// Package legacyquery answers the operator-registry gRPC API (the
// registry.Querier interface) from a legacy sqlite index read with the
// legacy package, the way `opm registry serve` answered it: same data,
// same error texts, the same quirks of the sqlite queries (synthetic skip
// edges, nearest-to-head providers, DISTINCT rows, plural filled from the
// api table, manifests omitted from ListBundles for image bundles).
//
// Nothing is read eagerly: New costs what legacy.Open(Lazy) costs (the
// schema and the package and channel rows), so a server reports SERVING
// at once whatever the size of the index. Each RPC reads what it needs:
// a package's rows on first use (legacy ReadPackage, kept in a bounded
// LRU of packages); the update graph (every channel_entry row, linked)
// from channel_entry alone on the first RPC that crosses packages; which
// bundles provide which API and the api table's plurals on the first
// provider RPC or GetBundle-family call (from the olm.gvk properties rows
// and the api tables when the reader serves them as stored, else by
// reading every package once, not keeping them). Bundle manifests (the csv and bundle columns) are read per call
// (keeping only a 4 MiB LRU of recently split columns, which a
// channel-by-channel walk hits half the time), or, once the update graph
// is read, with their package when a call about its bundles reads it and
// they fit a quarter of that LRU: the metadata columns lie after the
// manifests in each row, so the package read walks the manifests' pages
// anyway.
//
// A bundle named by the entries of several packages is served as the
// first of them by name reads it, as the eager index this replaced did.
//
// Where the sqlite server's answer depended on the query planner (LIMIT 1
// or GROUP BY without ORDER BY), the Querier makes a documented,
// deterministic choice; see the method docs. Lists whose order sqlite left
// unspecified come in a stable order: ListPackages sorted, GetPackage
// channels by name, ListBundles by (bundle, package, channel), entry
// streams by entry_id.
//
// Answers come from the legacy reader, which repairs known damage; the
// Querier serves the repaired values and lists the repairs in
// Querier.Repairs (which reads the whole catalog once, eagerly, to run
// the catalog-wide checks a lazy reader skips). Differences from `opm registry serve` that follow:
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
