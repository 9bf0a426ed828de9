// Package annotation declares, once for the module, the keys of a
// registry+v1 bundle's metadata/annotations.yaml. A bundle image carries
// the same keys as labels (opm's bundle.Dockerfile copies the annotations
// into LABEL lines), so image classification, the unpack Job and the
// bundle package all name them from here.
//
// It is a leaf: string constants only, no imports, so that every layer
// (image and unpack/jobtool included, which may import nothing else of the
// module) can use it.
package annotation

// The bundle annotation keys.
const (
	// MediaType is the bundle's format: registry+v1, helm or plain.
	MediaType = "operators.operatorframework.io.bundle.mediatype.v1"
	// Manifests names the manifests directory ("manifests/").
	Manifests = "operators.operatorframework.io.bundle.manifests.v1"
	// Metadata names the metadata directory ("metadata/").
	Metadata = "operators.operatorframework.io.bundle.metadata.v1"
	// Package is the bundle's package name; as an image label it marks
	// a bundle image.
	Package = "operators.operatorframework.io.bundle.package.v1"
	// Channels are the channels the bundle is in, comma-separated.
	Channels = "operators.operatorframework.io.bundle.channels.v1"
	// DefaultChannel is the package's default channel.
	DefaultChannel = "operators.operatorframework.io.bundle.channel.default.v1"
)
