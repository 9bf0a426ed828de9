//go:build !slim

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/operator-catalog/olmcat/bundle"
	"github.com/operator-catalog/olmcat/declcfg/indexop"
	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/migrate"
)

// loadBundle renders one bundle image or bundle directory as olmcat
// render does; the image is the reference as given (opm's bundlepath).
func loadBundle(ctx context.Context, arg string, img *imageFlags, migrateLevel string, stderr io.Writer) (indexop.NewBundle, error) {
	in, err := img.resolve(ctx, arg, input.Either, "bundle", stderr)
	if err != nil {
		return indexop.NewBundle{}, inputError(err, func(err error) error {
			if pe := (*fs.PathError)(nil); errors.As(err, &pe) && pe.Path == arg {
				err = pe.Err // the path is named once, by the context below
			}
			return &exitError{code: exitInvalid, err: fmt.Errorf("bundle %s: %w", arg, err)}
		})
	}
	defer in.Close()
	ri := renderInput{Input: in, name: arg, migrateLevel: migrateLevel}
	bundleDir, ref, ok := ri.bundleDir()
	if !ok {
		return indexop.NewBundle{}, &exitError{code: exitInvalid, err: fmt.Errorf("bundle %s: not a bundle image or bundle directory (manifests/ and metadata/)", arg)}
	}
	b, meta, err := bundle.FromFS(os.DirFS(bundleDir), bundle.WithImage(ref),
		bundle.WithCSVMetadata(migrateLevel == string(migrate.MigrateLevelCSVMetadata)),
		bundle.WithWarnings(func(msg string) { fmt.Fprintln(stderr, "warning:", msg) }))
	if err != nil {
		return indexop.NewBundle{}, &exitError{code: exitInvalid, err: fmt.Errorf("bundle %s: %w", arg, err)}
	}
	return indexop.NewBundle{Bundle: b, Meta: meta}, nil
}

// loadBundles loads every bundle of refs and returns the op adding them
// (indexop.BundleAdd). With permissive, a bundle that fails to load or
// to add is left out and reported, and the others go on.
func loadBundles(ctx context.Context, refs []string, img *imageFlags, permissive bool, stderr io.Writer, opts ...indexop.Option) (catalogOp, error) {
	var bundles []indexop.NewBundle
	for _, ref := range refs {
		nb, err := loadBundle(ctx, ref, img, string(migrate.MigrateLevelNone), stderr)
		if err != nil {
			if permissive && !errors.Is(err, context.Canceled) {
				fmt.Fprintf(stderr, "permissive: left out %s: %v\n", ref, err)
				continue
			}
			return catalogOp{}, err
		}
		bundles = append(bundles, nb)
	}
	return catalogOp{Op: indexop.NewBundleAdd(bundles, permissive, lineWriter(stderr), opts...).Op()}, nil
}
