// Package declcfg owns the declarative config (file-based catalog) format:
// the olm.package, olm.channel, olm.bundle and olm.deprecations blobs, the
// well-known bundle properties (one typed parser per value type, which
// Property.Validate applies, and the one rule for a bundle's olm.package:
// PackageOf, or FirstPackageOf where a catalog is read unvalidated), loading
// a directory tree of JSON/YAML blob streams and writing it in the opm
// layout or the objects layout. Linking and validating the blobs into a
// model is package declcfg/model's.
//
// Loading has three entry points, named by what they return. LoadDir
// gives the whole *DeclarativeConfig of a directory (or, WithFile and
// WithBlob, of one file or one blob of it); EachPackage streams the
// directory's blobs package by package, never holding the catalog;
// DecodeStream frames one JSON/YAML stream into raw blobs. Every
// .json/.yaml/.yml file under a root is read, honouring .indexignore
// files, concurrently and in a deterministic order. Blobs of unknown
// schemas are kept verbatim. olm.bundle.object refs are resolved inside
// the root and inlined, so a loaded config does not depend on the layout
// it came from.
//
// Writing (WriteJSON, WriteYAML, WriteStream, DirWriter, WriteDir) follows
// opm byte for byte: opm's blob order, four-space JSON without HTML
// escaping, YAML documents with sorted keys. Directories are written to a
// temporary sibling and renamed into place; existing output is only
// replaced when asked to. The objects layout puts every bundle object in
// its own file, and falls back to the object's JSON text (or to inline
// data) whenever YAML could not reproduce the object's bytes, so both
// layouts convert into each other without loss.
package declcfg
