// Package legacy reads legacy operator-registry sqlite index databases (the
// "index.db" built by opm index add / opm registry add / the initializer)
// at every schema level, read-only. It computes what older levels lack from
// the CSV JSON and channel_entry, repairs known damage in memory (never in
// the file) and reports every repair, and serves typed rows package by
// package so that converters can stream.
//
// # Opening
//
// Open uses the modernc.org/sqlite driver with a
// "file:<escaped path>?mode=ro&immutable=1" URI and query_only, so the file
// is never locked, journaled or written: its bytes are identical after any
// use. It refuses, with errors naming the file, anything that is not a
// sqlite file, truncated files, empty databases and databases without the
// legacy tables (operatorbundle, package, channel, channel_entry).
//
// The schema level is schema_migrations.version (-1 when the table is
// missing or empty), but the reader goes by the tables and columns actually
// present (HasTable, HasColumn).
//
// # What is read where
//
// Open reads the small tables once (package, channel, channel_entry, the
// indexed name/version/bundlepath of operatorbundle, properties,
// dependencies, related_image, api, api_provider, api_requirer, deprecated):
// the bundle-keyed tables have no index on the bundle name, so per-package
// queries would scan them once per package. ReadPackage fetches the csv and
// bundle columns of one package's bundles by primary key, so memory stays
// bounded by one package (two with two concurrent readers).
//
// With Lazy (for servers), Open reads only the schema and the package and
// channel rows; the first ReadPackage scans the row ids and keys of
// channel_entry and the bundle-keyed tables once into an index of where
// each package's and bundle's rows lie, and every ReadPackage then reads
// its package's rows by rowid ranges. A lazy DB runs none of the
// catalog-wide checks (see Lazy).
//
// # Derived data
//
// Below the level that introduced them, version and skipRange come from the
// CSV (spec.version, annotation olm.skipRange); replaces/skips from the CSV
// (else channel_entry); properties are olm.package, one olm.gvk per provided
// API (api_provider, else the CRD manifests and owned APIServices) and the
// CSV annotation olm.properties; dependencies are one olm.gvk per required
// API (api_requirer, else the CSV); related images are the CSV's operator
// and related images. Below level 6 the api tables are keyed by
// channel_entry_id and are mapped to bundles. Each package gets at most one
// RepairDerived line listing what was computed.
//
// # Repairs
//
// Known damage is repaired in memory and reported as Repair values: one
// line per kind and bundle at most, package-wide kinds (derived data, NULL
// property paths, duplicate rows) one line per package. Database-wide
// findings (migration-5 junk rows, migration-9 corruption, stranded bundles
// that belong to no package) are in DB.Repairs.
//
// # Concurrency
//
// After Open a DB is read-only in memory; ReadPackage, PackageNames and
// BundleManifests may be called from several goroutines at once.
package legacy
