// Package migrate owns the conversion of a legacy sqlite index database
// into a declarative config catalog: legacy rows (read by package legacy)
// become olm.package, olm.channel, olm.bundle and olm.deprecations blobs,
// one package at a time, exactly as opm converted them except where opm
// lost or hid data (every such difference is written down in
// MIGRATION.md).
//
// Nothing is dropped or repaired silently: every repair the reader made,
// every bundle or field left out and every piece of unservable content is
// listed in the Report. Unservable content fails the migration unless a
// resolution option says what to do with it, and the written catalog is
// validated before it is renamed into place.
package migrate
