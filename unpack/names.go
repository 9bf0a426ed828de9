package unpack

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/operator-catalog/olmcat/unpack/jobtool"
)

// Labels and annotations shared with OLM and opm.
const (
	// LabelManaged marks every object Launch creates.
	LabelManaged = "olm.managed"
	// LabelUnpackRef carries Name(image) on the Job and its pod template.
	LabelUnpackRef = "operatorframework.io/bundle-unpack-ref"

	// AnnotationSourceImage records the bundle image a ConfigMap came from.
	AnnotationSourceImage = jobtool.AnnotationSourceImage
	// AnnotationContentEncoding is set to EncodingGzipBase64 when the
	// ConfigMap's entries are gzipped and base64-encoded in binaryData.
	AnnotationContentEncoding = jobtool.AnnotationContentEncoding
	// EncodingGzipBase64 is the only content encoding besides plain text.
	EncodingGzipBase64 = jobtool.EncodingGzipBase64
	// AnnotationPaths maps each ConfigMap key to the bundle file it holds.
	AnnotationPaths = jobtool.AnnotationPaths
	// AnnotationsFile is the bundle metadata file whose annotations are
	// the ConfigMap's annotations.
	AnnotationsFile = jobtool.AnnotationsFile
)

// Name is the name of every object unpacking image uses: the lowercase hex
// sha256 of the image reference exactly as given, less its last character,
// so that it is also a valid label value (63 characters). A tag and a digest
// reference of the same image get different names, as in OLM.
func Name(image string) string {
	sum := sha256.Sum256([]byte(image))
	return hex.EncodeToString(sum[:])[:63]
}
