package action

import (
	"context"
	"errors"

	"github.com/operator-catalog/olmcat/declcfg/indexop"
	"github.com/operator-catalog/olmcat/image"
)

// Edit is what an IndexEdit or a RegistryEdit changes in the catalog:
// AddBundles, RemovePackages, KeepPackages, PruneStranded or
// DeprecateTruncate.
type Edit interface {
	// check refuses options that cannot work, before anything is read.
	check() error
	// op is the operation on src, built once src is open.
	op(ctx context.Context, env Env, src *indexSource) (indexop.Op, error)
	// newCatalogOK says whether a catalog that does not exist is an
	// empty one (opm's registry add created it).
	newCatalogOK() bool
}

// AddBundles adds bundle images or bundle directories to their packages
// (opm's index add and registry add).
type AddBundles struct {
	Bundles []string
	// Mode is the graph update mode as given, parsed (indexop.ParseMode,
	// case-insensitively) once the catalog is open; "" is replaces.
	Mode            indexop.Mode
	OverwriteLatest bool
	EnableAlpha     bool
	// Permissive leaves out a bundle that fails to load or to add, told
	// through the log, and goes on with the others.
	Permissive bool
	// ImageOptions, if set, pull the bundles instead of the Env's (opm's
	// registry add --skip-tls reached only the bundles' registries in
	// plain HTTP).
	ImageOptions func() ([]image.Option, error)
}

func (a AddBundles) newCatalogOK() bool { return true }

func (a AddBundles) check() error {
	_, err := parseMode(a.Mode, "AddBundles.Mode")
	return err
}

func (a AddBundles) op(ctx context.Context, env Env, _ *indexSource) (indexop.Op, error) {
	mode, err := parseMode(a.Mode, "AddBundles.Mode")
	if err != nil {
		return indexop.Op{}, err
	}
	if a.ImageOptions != nil {
		env.ImageOptions = a.ImageOptions
	}
	var bundles []indexop.NewBundle
	for _, ref := range a.Bundles {
		nb, err := loadBundle(ctx, env, ref, false)
		if err != nil {
			if a.Permissive && !errors.Is(err, context.Canceled) {
				env.logf("permissive: left out %s: %v", ref, err)
				continue
			}
			return indexop.Op{}, err
		}
		bundles = append(bundles, nb)
	}
	opts := []indexop.Option{indexop.WithMode(mode), indexop.WithOverwriteLatest(a.OverwriteLatest), indexop.WithEnableAlpha(a.EnableAlpha)}
	return indexop.NewBundleAdd(bundles, a.Permissive, env.log, opts...).Op(), nil
}

// RemovePackages removes packages (opm's rm). A name that is no package
// of the catalog is an error, or with Permissive a note.
type RemovePackages struct {
	Packages   []string
	Permissive bool
}

func (r RemovePackages) newCatalogOK() bool { return false }
func (r RemovePackages) check() error       { return nil }

func (r RemovePackages) op(_ context.Context, env Env, _ *indexSource) (indexop.Op, error) {
	return indexop.RemoveOp(r.Packages, r.Permissive, env.log), nil
}

// KeepPackages keeps only the packages named (opm's prune).
type KeepPackages struct {
	Packages []string
}

func (k KeepPackages) newCatalogOK() bool { return false }
func (k KeepPackages) check() error       { return nil }

func (k KeepPackages) op(_ context.Context, env Env, _ *indexSource) (indexop.Op, error) {
	return indexop.PruneOp(k.Packages, env.log), nil
}

// PruneStranded drops the bundles no channel holds (opm's
// prune-stranded).
type PruneStranded struct{}

func (PruneStranded) newCatalogOK() bool { return false }
func (PruneStranded) check() error       { return nil }

func (PruneStranded) op(_ context.Context, env Env, _ *indexSource) (indexop.Op, error) {
	return indexop.PruneStrandedOp(env.log), nil
}

// DeprecateTruncate deprecates the bundles of Images and truncates their
// channels below them (opm's deprecatetruncate, indexop.DeprecateOp).
type DeprecateTruncate struct {
	Images              []string
	AllowPackageRemoval bool
	Permissive          bool
}

func (d DeprecateTruncate) newCatalogOK() bool { return false }
func (d DeprecateTruncate) check() error       { return nil }

func (d DeprecateTruncate) op(ctx context.Context, env Env, src *indexSource) (indexop.Op, error) {
	return indexop.DeprecateOp(ctx, src.each, d.Images, d.AllowPackageRemoval, d.Permissive, env.log)
}

// parseMode parses a graph update mode as given ("" is replaces); an
// invalid one is a usage error of option.
func parseMode(m indexop.Mode, option string) (indexop.Mode, error) {
	if m == "" {
		return indexop.ModeReplaces, nil
	}
	mode, err := indexop.ParseMode(string(m))
	if err != nil {
		return "", usage(option, err)
	}
	return mode, nil
}
