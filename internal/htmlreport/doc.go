// Package htmlreport writes self-contained HTML pages: the upgrade graphs
// of a catalog, the report of a migration (summary, every repair and drop
// with its reason, each package's graphs before and after with the
// changes highlighted) and the report of a parity check (per-RPC table,
// differences grouped by rule).
//
// A page needs nothing but itself: styles, pictures (inline SVG) and the
// few lines of script behind the search box are inline, and a
// Content-Security-Policy forbids every fetch, so it works offline from a
// file. Packages are collapsed <details> elements, so a page of hundreds
// of packages stays usable. Pages are deterministic: the same input gives
// the same bytes.
package htmlreport
