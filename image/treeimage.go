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

// Tree is a local directory BuildTreeImage puts into an image.
type Tree struct {
	// Dir is the local directory.
	Dir string
	// Path is where its content goes in the image, absolute
	// ("/manifests").
	Path string
}

// TreeImage describes the one-platform image of directory trees that
// BuildTreeImage makes (a bundle image: package bundle/bundleimage).
type TreeImage struct {
	// Name names what is built in errors ("build <Name>: ...").
	Name string
	// Trees are the directories, in one layer.
	Trees []Tree
	// Platform is the platform the config names.
	Platform v1.Platform
	// Labels are the config's labels.
	Labels map[string]string
}

// BuiltImage is an image made by BuildTreeImage. Its layer is backed by a
// temporary file: Close removes it once the image is pushed or written.
type BuiltImage struct {
	// Image is the image (one manifest, no index).
	Image v1.Image
	dir   *tempdir.Dir // the marked temporary directory
}

// Close removes the temporary files.
func (b *BuiltImage) Close() error {
	if b == nil {
		return nil
	}
	return b.dir.Remove()
}

// BuildTreeImage makes an image without a container daemon: the
// directories and regular files of each tree at its path, in one layer,
// with the labels and platform of spec. It starts from an empty image, or
// from the base image of WithBaseImage (pulled for that platform).
// Entries are sorted, owned by root, with mode 0644 (0755 for
// directories) and WithCreated's time (default the Unix epoch), so the
// same directories give the same digest. Of the build options only
// WithBaseImage, WithCreated, WithBuildTempDir and WithBuildNotes apply.
func BuildTreeImage(ctx context.Context, spec TreeImage, opts ...BuildOption) (b *BuiltImage, err error) {
	o := buildOptions{created: time.Unix(0, 0).UTC()}
	for _, opt := range opts {
		opt(&o)
	}
	work, err := newTempDir(o.tempDir, buildPrefix, o.note)
	if err != nil {
		return nil, fmt.Errorf("build %s: %w", spec.Name, err)
	}
	tmp := work.Path
	built := &BuiltImage{dir: work}
	defer func() {
		// built itself: a "return nil, err" has set b to nil already.
		if err != nil {
			built.Close()
			b = nil
		}
	}()
	var files []layerFile
	for _, tree := range spec.Trees {
		fs, err := treeFiles(tree.Dir, tree.Path[1:])
		if err != nil {
			return nil, fmt.Errorf("build %s: %w", spec.Name, err)
		}
		files = append(files, fs...)
	}
	layer, err := reproducibleLayer(files, o.created, tmp)
	if err != nil {
		return nil, fmt.Errorf("build %s: %w", spec.Name, err)
	}
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	if o.baseImage != "" {
		pulled, err := Pull(ctx, o.baseImage, append(o.pull, WithPlatform(spec.Platform))...)
		if err != nil {
			return nil, fmt.Errorf("build %s: base image: %w", spec.Name, err)
		}
		base = pulled.Image
	}
	if built.Image, err = treeImage(base, layer, spec, o.created); err != nil {
		return nil, err
	}
	return built, nil
}

// treeImage appends layer to base and sets the labels, platform and
// creation time in its config.
func treeImage(base v1.Image, layer v1.Layer, spec TreeImage, created time.Time) (v1.Image, error) {
	img, err := mutate.AppendLayers(base, layer)
	if err != nil {
		return nil, fmt.Errorf("build %s: %w", spec.Name, err)
	}
	return withConfig(img, spec.Platform, created, func(c *v1.Config) {
		for k, v := range spec.Labels {
			c.Labels[k] = v
		}
	})
}
