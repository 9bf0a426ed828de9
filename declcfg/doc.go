// Package declcfg owns the declarative config (file-based catalog) format:
// the olm.package, olm.channel, olm.bundle and olm.deprecations blobs, the
// well-known bundle properties, loading a directory tree of JSON/YAML blob
// streams, writing it in the opm layout or the objects layout, and
// validating it into a linked Model that servers reuse.
//
// Loading (LoadDir, LoadFile, DecodeStream) reads every .json/.yaml/.yml
// file under a root, honouring .indexignore files, concurrently and in a
// deterministic order. Blobs of unknown schemas are kept verbatim.
// olm.bundle.object refs are resolved inside the root and inlined, so a
// loaded config does not depend on the layout it came from.
//
// Writing (WriteJSON, WriteYAML, WriteStream, DirWriter, WriteDir) follows
// opm byte for byte: opm's blob order, four-space JSON without HTML
// escaping, YAML documents with sorted keys. Directories are written to a
// temporary sibling and renamed into place; existing output is only
// replaced when asked to. The objects layout puts every bundle object in
// its own file, and falls back to the object's JSON text (or to inline
// data) whenever YAML could not reproduce the object's bytes, so both
// layouts convert into each other without loss.
//
// Validation (ConvertToModel, Model.Validate) applies opm's rules and
// reports every problem at once, each naming its file, blob position and
// blob. The model's rules run per element (ModelPackage, ModelChannel and
// ModelBundle each have a Validate) and fail with nested *ModelError values
// (package -> channel -> bundle) that the *ValidationError unwraps to; its
// flat Problems list, which the CLI prints, is derived from them.
package declcfg
