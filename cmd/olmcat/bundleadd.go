//go:build !slim

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"

	"github.com/operator-catalog/olmcat/bundle"
	"github.com/operator-catalog/olmcat/declcfg"
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

// bundleAdd adds loaded bundles to their packages (indexop.Add). With
// permissive, a bundle that fails to load or to add is left out and
// reported, and the others go on.
type bundleAdd struct {
	byPkg      map[string][]indexop.NewBundle
	order      []string // packages, first named first
	opts       []indexop.Option
	permissive bool
	stderr     io.Writer
	done       map[string]bool
	added      int
}

// loadBundles loads every bundle of refs.
func loadBundles(ctx context.Context, refs []string, img *imageFlags, permissive bool, stderr io.Writer, opts ...indexop.Option) (*bundleAdd, error) {
	a := &bundleAdd{byPkg: map[string][]indexop.NewBundle{}, opts: opts, permissive: permissive, stderr: stderr, done: map[string]bool{}}
	for _, ref := range refs {
		nb, err := loadBundle(ctx, ref, img, string(migrate.MigrateLevelNone), stderr)
		if err != nil {
			if permissive && !errors.Is(err, context.Canceled) {
				fmt.Fprintf(stderr, "permissive: left out %s: %v\n", ref, err)
				continue
			}
			return nil, err
		}
		pkg := nb.Bundle.Package
		if _, ok := a.byPkg[pkg]; !ok {
			a.order = append(a.order, pkg)
		}
		a.byPkg[pkg] = append(a.byPkg[pkg], nb)
	}
	return a, nil
}

// op is the catalogOp adding the bundles.
func (a *bundleAdd) op() catalogOp {
	return catalogOp{
		apply: func(pkg string, cfg *declcfg.DeclarativeConfig) (*declcfg.DeclarativeConfig, error) {
			if _, ok := a.byPkg[pkg]; !ok || pkg == "" {
				return cfg, nil
			}
			a.done[pkg] = true
			return a.addTo(pkg, cfg)
		},
		extra: func() ([]*declcfg.DeclarativeConfig, error) {
			var out []*declcfg.DeclarativeConfig
			for _, pkg := range a.order {
				if a.done[pkg] {
					continue
				}
				res, err := a.addTo(pkg, nil)
				if err != nil {
					return nil, err
				}
				if res != nil {
					out = append(out, res)
				}
			}
			return out, nil
		},
	}
}

// addTo adds the bundles of pkg to cfg (nil: a new package).
func (a *bundleAdd) addTo(pkg string, cfg *declcfg.DeclarativeConfig) (*declcfg.DeclarativeConfig, error) {
	bundles := a.byPkg[pkg]
	for len(bundles) > 0 {
		res, changes, err := indexop.Add(pkg, cfg, bundles, a.opts...)
		if err == nil {
			err = validatePackage(pkg, res)
		}
		var be *indexop.BundleError
		isBad := func(nb indexop.NewBundle) bool { return be != nil && nb.Bundle.Name == be.Bundle }
		switch {
		case err == nil:
			for _, c := range changes {
				fmt.Fprintln(a.stderr, c)
			}
			a.added += len(bundles)
			return res, nil
		case !a.permissive || !errors.As(err, &be) || !slices.ContainsFunc(bundles, isBad):
			// An error about a bundle already in the catalog: leaving
			// out the new ones would not mend it.
			return nil, &exitError{code: exitInvalid, err: err}
		}
		fmt.Fprintf(a.stderr, "permissive: left out bundle %s (%s): %v\n", be.Bundle, be.Image, be.Err)
		bundles = slices.DeleteFunc(slices.Clone(bundles), isBad)
	}
	return cfg, nil
}
