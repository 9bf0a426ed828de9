// Package source opens a registry.Querier for a resolved catalog input
// (package input tells what an argument names): a declarative config
// directory (served by declcfgquery) or a legacy sqlite index file (served
// by legacyquery), and fingerprints it for a server's reload. It is the
// serving side of an input only: telling what an argument is, and pulling
// images, are package input's. It prints nothing: callers learn from the
// input's Kind that it is a legacy sqlite index and print the deprecation
// warning themselves. The slim build (tag "slim", the binary of the images
// olmcat builds) has no sqlite backend: OpenInput refuses a sqlite index
// there with ErrNoSQLite.
package source
