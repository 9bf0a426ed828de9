// Package declcfg owns the declarative config (file-based catalog) format:
// the olm.package, olm.channel, olm.bundle and olm.deprecations blobs, the
// well-known bundle properties, loading a directory tree of JSON/YAML blob
// streams, writing it in the opm layout or the objects layout, and
// validating it into a linked Model that servers reuse.
package declcfg
