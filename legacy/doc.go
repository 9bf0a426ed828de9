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
// The bundle-keyed tables (properties, dependencies, related_image,
// api_provider, api_requirer) have no index on the bundle name, so
// per-package queries would scan them once per package. Open therefore
// scans, once, only the row ids and keys of channel_entry and of those
// tables (never their values, never operatorbundle's csv and bundle
// overflow pages) into a rowid index: per package and per bundle, the
// runs of rowids holding its rows, bundle and package names interned
// once. It runs the catalog-wide checks from that scan and from the
// operatorbundle name/version/bundlepath index, reading the rows of only
// the bundles the checks single out, and then drops what only the checks
// needed. ReadPackage reads one package's rows by rowid ranges and the
// per-package operatorbundle columns by primary key. What Open keeps is
// the package and channel rows and the rowid index, a few dozen bytes
// per bundle; a read package is the caller's, so memory stays bounded by
// the packages being read (two with two concurrent readers).
//
// Two kinds of database are read the older way, every table loaded at
// Open: api tables keyed by channel_entry_id (below level 6), which map
// to bundles only through the whole of channel_entry, and dependencies
// whose rows all hold one value (migration 9's signature), whose check
// compares the whole table with api_requirer and the CSVs.
//
// With Lazy (for servers), Open reads only the schema and the package and
// channel rows; the first ReadPackage builds the rowid index, and no
// catalog-wide check runs (see Lazy).
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
