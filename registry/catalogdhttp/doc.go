// Package catalogdhttp owns olmcat's copy of catalogd's HTTP API (OLM
// v1): GET/HEAD /catalogs/<name>/api/v1/all and /catalogs/<name>/api/v1/metas
// for one named catalog, plus /healthz. It owns how catalogd re-encodes
// each blob (Encode), the served file and its offset index (Snapshot,
// written once per load to a temporary directory so that no catalog body
// is held in memory), the handler with catalogd's status codes, headers
// and gzip behaviour (Handler), and the server that loads, watches and
// reloads the catalog (Serve). Where catalogd's answers are worse than
// they need to be (no ETag, Last-Modified moving on every unpack, a 500
// for a malformed If-Modified-Since) olmcat does better; MIGRATION.md
// lists both.
package catalogdhttp
