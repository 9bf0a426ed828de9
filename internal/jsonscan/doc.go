// Package jsonscan holds the project's low-level JSON scanning primitives:
// find where a value ends without decoding it, walk the fields of an
// object or the elements of an array as raw sub-slices, decode a plain
// string without encoding/json, tell whether bytes are valid JSON, and
// split a stream of top-level objects.
//
// It exists for the hot paths: bundle manifests are large (a CSV is tens
// of kilobytes, mostly long strings) and the readers need a handful of
// small fields from them, so they skip over the rest. Every primitive
// returns sub-slices of its input (no copies) and agrees with
// encoding/json, which its fuzz tests use as the oracle: scanning never
// accepts a value encoding/json would decode differently, and where a
// fast path cannot tell (escapes in a string, say), it falls back to
// encoding/json.
//
// The walkers (SkipValue, ObjectFields, ArrayElems, Field, Objects) find
// value boundaries by tracking strings and bracket depth only; they do
// not check the grammar inside a value. Callers that have not already
// checked the input check it with Valid (same verdict as json.Valid,
// faster on long strings).
//
// It imports no other package of the project.
package jsonscan
