//go:build !slim

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/operator-catalog/olmcat/bundle"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/template"
	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/input"
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
	warn := bundle.WithWarnings(func(msg string) { fmt.Fprintln(stderr, "warning:", msg) })
	pullOpts := input.WithImageOptions(func(string) ([]image.Option, error) { return opts, nil })
	return func(ctx context.Context, ref string) (*declcfg.Bundle, error) {
		in, err := input.Resolve(ctx, ref, input.Bundle, pullOpts)
		var pe *input.PullError
		var nb *input.NotBundleError
		switch {
		case errors.As(err, &pe):
			return nil, imageError(pe.Err)
		case errors.As(err, &nb) && nb.Kind == input.KindDeclcfg:
			return nil, fmt.Errorf("directory %s is not a bundle (no manifests/ and metadata/)", ref)
		case err != nil:
			return nil, err
		}
		defer in.Close()
		bopts := []bundle.Option{bundle.WithCSVMetadata(csvMetadata), warn}
		if in.Image != "" {
			bopts = append(bopts, bundle.WithImage(ref))
		}
		b, _, err := bundle.FromFS(os.DirFS(in.Path), bopts...)
		return &b, err
	}, nil
}
