// Package report writes what olmcat's commands found, in every output
// format the CLI offers: the text summaries, the JSON documents, the
// self-contained HTML pages (the upgrade graphs of a catalog, the report
// of a migration, the report of a parity check), and the CI formats of
// parity and validate (JUnit XML, GitHub Actions workflow commands).
//
// The libraries return results and typed kinds; this package is the one
// place that turns them into bytes, and the one place (with the cobra
// commands) that names the CLI's flags in what the user reads.
//
// A page needs nothing but itself: styles, pictures (inline SVG) and the
// few lines of script behind the search box are inline, and a
// Content-Security-Policy forbids every fetch, so it works offline from a
// file. Packages are collapsed <details> elements, so a page of hundreds
// of packages stays usable. Pages are deterministic: the same input gives
// the same bytes.
//
// The streamed formats (parity's JSON, JUnit and GitHub outputs) are
// written while a check runs, package by package: memory does not grow
// with the catalog.
package report
