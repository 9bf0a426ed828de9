// Package source tells what kind of catalog a reference names (Detect:
// sqlite index, declarative config directory or file, live gRPC server)
// and opens a registry.Querier for the local kinds: a declarative config
// directory (served by declcfgquery) or a legacy sqlite index file (served
// by legacyquery). Every command and parity classify their inputs with
// Detect, so a new input kind is added in one place. It prints nothing:
// callers learn from the Kind that an input is a legacy sqlite index and
// print the deprecation warning themselves. The slim build (tag "slim",
// the binary of the images olmcat builds) has no sqlite backend: OpenInput
// refuses a sqlite index there with ErrNoSQLite.
package source
