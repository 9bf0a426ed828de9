// Package bundleimage builds the image of a registry+v1 bundle without a
// container daemon (opm alpha bundle build without docker): what goes
// where in a bundle image is the bundle format's, how a reproducible
// image is assembled, pulled and pushed is package image's. It is the
// one part of the bundle tree that imports image, so that reading
// bundles (package bundle, which declcfg's index ops use) does not.
package bundleimage

import (
	"context"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/operator-catalog/olmcat/image"
)

// Where a bundle image holds its parts (operator-registry's bundle
// format, the COPY targets of opm's bundle.Dockerfile).
const (
	ManifestsPath = "/manifests"
	MetadataPath  = "/metadata"
)

// platform is the platform a bundle image's config names. A bundle holds
// only YAML and runs on no platform; one fixed value keeps the digest the
// same on every machine.
var platform = v1.Platform{OS: "linux", Architecture: "amd64"}

// Build makes a bundle image: the directories and regular files of
// manifestsDir at /manifests and of metadataDir at /metadata, in one
// layer, labelled with labels (the annotations of
// metadata/annotations.yaml, as opm's bundle.Dockerfile labels them),
// for linux/amd64. It starts from an empty image, or from the base image
// of image.WithBaseImage; the same directories give the same digest
// (image.BuildTreeImage). Close the result once it is pushed or written.
func Build(ctx context.Context, manifestsDir, metadataDir string, labels map[string]string, opts ...image.BuildOption) (*image.BuiltImage, error) {
	return image.BuildTreeImage(ctx, image.TreeImage{
		Name:     "bundle",
		Trees:    []image.Tree{{Dir: manifestsDir, Path: ManifestsPath}, {Dir: metadataDir, Path: MetadataPath}},
		Platform: platform,
		Labels:   labels,
	}, opts...)
}
