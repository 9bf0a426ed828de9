package image

import (
	"context"
	"fmt"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/operator-catalog/olmcat/internal/tempdir"
)

// Where a bundle image holds its parts (operator-registry's bundle
// format, the COPY targets of opm's bundle.Dockerfile).
const (
	BundleManifestsPath = "/manifests"
	BundleMetadataPath  = "/metadata"
)

// bundlePlatform is the platform a bundle image's config names. A bundle
// holds only YAML and runs on no platform; one fixed value keeps the
// digest the same on every machine.
var bundlePlatform = v1.Platform{OS: "linux", Architecture: "amd64"}

// BuiltBundle is a bundle image. Its layer is backed by a temporary file:
// Close removes it once the image is pushed or written.
type BuiltBundle struct {
	// Image is the bundle image (one manifest, no index).
	Image v1.Image
	dir   *tempdir.Dir // the marked temporary directory
}

// Close removes the temporary files.
func (b *BuiltBundle) Close() error {
	if b == nil {
		return nil
	}
	return b.dir.Remove()
}

// BuildBundle makes a bundle image without a container daemon: the
// directories and regular files of manifestsDir at /manifests and of
// metadataDir at /metadata, in one layer, labelled with labels (the
// annotations of metadata/annotations.yaml, as opm's bundle.Dockerfile
// labels them). It starts from an empty image, or from the base image of
// WithBaseImage. Entries are sorted, owned by root, with mode 0644 (0755
// for directories) and WithCreated's time (default the Unix epoch), so
// the same directories give the same digest. Of the build options only
// WithBaseImage, WithCreated, WithBuildTempDir and WithBuildNotes apply.
func BuildBundle(ctx context.Context, manifestsDir, metadataDir string, labels map[string]string, opts ...BuildOption) (b *BuiltBundle, err error) {
	o := buildOptions{created: time.Unix(0, 0).UTC()}
	for _, opt := range opts {
		opt(&o)
	}
	work, err := newTempDir(o.tempDir, buildPrefix, o.note)
	if err != nil {
		return nil, fmt.Errorf("build bundle: %w", err)
	}
	tmp := work.Path
	built := &BuiltBundle{dir: work}
	defer func() {
		// built itself: a "return nil, err" has set b to nil already.
		if err != nil {
			built.Close()
			b = nil
		}
	}()
	var files []layerFile
	for _, part := range [][2]string{{manifestsDir, BundleManifestsPath[1:]}, {metadataDir, BundleMetadataPath[1:]}} {
		fs, err := treeFiles(part[0], part[1])
		if err != nil {
			return nil, fmt.Errorf("build bundle: %w", err)
		}
		files = append(files, fs...)
	}
	layer, err := reproducibleLayer(files, o.created, tmp)
	if err != nil {
		return nil, fmt.Errorf("build bundle: %w", err)
	}
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	if o.baseImage != "" {
		pulled, err := Pull(ctx, o.baseImage, append(o.pull, WithPlatform(bundlePlatform))...)
		if err != nil {
			return nil, fmt.Errorf("build bundle: base image: %w", err)
		}
		base = pulled.Image
	}
	if built.Image, err = bundleImage(base, layer, labels, o.created); err != nil {
		return nil, err
	}
	return built, nil
}

// bundleImage appends layer to base and sets the labels, platform and
// creation time in its config.
func bundleImage(base v1.Image, layer v1.Layer, labels map[string]string, created time.Time) (v1.Image, error) {
	img, err := mutate.AppendLayers(base, layer)
	if err != nil {
		return nil, fmt.Errorf("build bundle: %w", err)
	}
	return withConfig(img, bundlePlatform, created, func(c *v1.Config) {
		for k, v := range labels {
			c.Labels[k] = v
		}
	})
}
