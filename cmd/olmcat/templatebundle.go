//go:build !slim

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/template"
	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/registry/source"
)

// bundleRenderer renders the bundle references of templates: a bundle
// image is pulled (cache, auth, mirrors, TLS from the image flags) and
// rendered as opm render renders it, image field as typed; a bundle
// directory (manifests/ and metadata/) renders with an empty image.
// Catalog images and other inputs are refused.
func (f *imageFlags) bundleRenderer(csvMetadata bool, stderr io.Writer) (template.BundleRenderer, error) {
	opts, err := f.options()
	if err != nil {
		return nil, usageError(err)
	}
	warn := declcfg.WithBundleWarnings(func(msg string) { fmt.Fprintln(stderr, "warning:", msg) })
	return func(ctx context.Context, ref string) (*declcfg.Bundle, error) {
		in, err := source.Detect(ref)
		if err != nil {
			return nil, err
		}
		switch in.Kind {
		case source.KindImage:
			u, err := image.ExtractCatalog(ctx, in.Image, opts...)
			if err != nil {
				return nil, imageError(err)
			}
			defer u.Close()
			if u.Kind != image.KindBundle {
				return nil, fmt.Errorf("%s is a %s catalog image, not a bundle image", ref, u.Kind)
			}
			b, _, err := declcfg.BundleFromFS(os.DirFS(u.Root), declcfg.WithBundleImage(ref), declcfg.WithCSVMetadata(csvMetadata), warn)
			return &b, err
		case source.KindDeclcfg:
			if !isBundleDir(in.Ref) {
				return nil, fmt.Errorf("directory %s is not a bundle (no manifests/ and metadata/)", ref)
			}
			b, _, err := declcfg.BundleFromFS(os.DirFS(in.Ref), declcfg.WithCSVMetadata(csvMetadata), warn)
			return &b, err
		}
		return nil, fmt.Errorf("%s is a %s, not a bundle image or bundle directory", ref, in.Kind)
	}, nil
}

// isBundleDir says whether dir holds manifests/ and metadata/.
func isBundleDir(dir string) bool {
	for _, sub := range []string{"manifests", "metadata"} {
		if st, err := os.Stat(filepath.Join(dir, sub)); err != nil || !st.IsDir() {
			return false
		}
	}
	return true
}
