package action

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/operator-catalog/olmcat/bundle"
	"github.com/operator-catalog/olmcat/bundle/bundleimage"
	"github.com/operator-catalog/olmcat/image"
)

// BundleBuild generates a bundle directory's metadata/annotations.yaml
// and bundle.Dockerfile (bundle.Generate), then builds the bundle image
// in-process, labelled with the annotations, and pushes it as Tag or
// writes it as an OCI layout. The same directory gives the same digest.
type BundleBuild struct {
	Env
	// Generate says what to generate; its Swept is the Env's log.
	Generate bundle.GenerateOptions
	// Tag is the image pushed, or (optional with OCILayout) its name in
	// the layout.
	Tag string
	// OCILayout, if set, is the directory the image is written to
	// instead of pushed; Force replaces a layout there.
	OCILayout string
	Force     bool
}

// BundleBuildResult is what was built: the image at Where (Tag, or
// oci:OCILayout) with Digest, of the bundle's two directories.
type BundleBuildResult struct {
	Where, Digest             string
	ManifestsDir, MetadataDir string
}

// Run takes the layout's lock, generates the metadata, builds the image
// and pushes or writes it. The errors of bundle.Generate
// (*bundle.MissingNamesError, *bundle.AnnotationsMismatchError) are
// returned as they are, for the caller to word.
func (b BundleBuild) Run(ctx context.Context) (BundleBuildResult, error) {
	var regOpts []image.Option
	if b.ImageOptions != nil {
		var err error
		if regOpts, err = b.ImageOptions(); err != nil {
			return BundleBuildResult{}, err
		}
	}
	if b.OCILayout != "" {
		release, err := b.lock(ctx, b.OCILayout, b.Generate.Dir)
		if err != nil {
			return BundleBuildResult{}, err
		}
		defer release()
	}
	gen := b.Generate
	gen.Swept = func(dir string) { b.log(AbandonedNote(dir)) }
	g, err := bundle.Generate(gen)
	if err != nil {
		return BundleBuildResult{}, err
	}
	res := BundleBuildResult{Where: b.Tag, ManifestsDir: g.ManifestsDir, MetadataDir: g.MetadataDir}
	meta, err := bundle.ReadMetadata(os.DirFS(filepath.Dir(g.MetadataDir)))
	if err != nil {
		return BundleBuildResult{}, err
	}
	opts := []image.BuildOption{image.WithBuildNotes(b.log)}
	if base := gen.BaseImage; base != "" && base != "scratch" {
		opts = append(opts, image.WithBaseImage(base, regOpts...))
	}
	built, err := bundleimage.Build(ctx, g.ManifestsDir, g.MetadataDir, meta.Annotations, opts...)
	if err != nil {
		return BundleBuildResult{}, err
	}
	defer built.Close()
	digest, err := built.Image.Digest()
	if err != nil {
		return BundleBuildResult{}, err
	}
	res.Digest = digest.String()
	if b.OCILayout != "" {
		res.Where = "oci:" + b.OCILayout
		err = layoutError("BundleBuild.Force", KindFailed, image.WriteImageLayout(b.OCILayout, strings.TrimPrefix(b.Tag, image.ImagePrefix), built.Image, b.Force, b.log))
	} else {
		err = image.PushImage(ctx, b.Tag, built.Image, regOpts...)
	}
	if err != nil {
		return BundleBuildResult{}, err
	}
	return res, nil
}
