// Package jobtool is what the unpack Job runs in its pod: CopyBundle, the
// copier run inside the bundle image (which has no shell), and Extract,
// which writes the copied bundle into the unpack ConfigMap
// (opm alpha bundle extract). It speaks to the API server with plain JSON
// over net/http (ConfigMaps) and imports no Kubernetes client or API
// package, so the binary shipped in images for the Job stays small; the
// rest of the unpack path (Launch, Lookup, Load) is package unpack.
package jobtool

// ConfigMap annotations shared with opm and package unpack.
const (
	// AnnotationSourceImage records the bundle image a ConfigMap came from.
	AnnotationSourceImage = "olm.sourceImage"
	// AnnotationContentEncoding is set to EncodingGzipBase64 when the
	// ConfigMap's entries are gzipped and base64-encoded in binaryData.
	AnnotationContentEncoding = "olm.contentEncoding"
	// EncodingGzipBase64 is the only content encoding besides plain text.
	EncodingGzipBase64 = "gzip+base64"

	// AnnotationPaths maps each ConfigMap key to the bundle file it holds
	// ("manifests/x.yaml", "metadata/dependencies.yaml"), a JSON object. opm
	// does not write it; Load falls back to manifests/<key> without it.
	AnnotationPaths = "olmcat.operator-catalog.io/paths"
)
