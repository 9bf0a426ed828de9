package action

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/model"
	"github.com/operator-catalog/olmcat/input"
)

// List reads an index into the rows of the tables opm alpha list prints
// of its packages, channels and bundles: a declarative config directory
// or file, a legacy sqlite index (with Legacy told), or an image of
// either (its sqlite database preferred, as opm does). A directory or a
// sqlite index is read one package at a time, each validated as opm's
// model validated the whole, so memory holds one package and the rows.
type List struct {
	Env
	Legacy Legacy
	// Index is the index read.
	Index string
	// Package, if set, lists only that package: the rest of a sqlite
	// index is not converted.
	Package string
}

// ListResult holds the rows of the three tables, each sorted as opm
// sorted it (model.ListPackages, ListChannels and ListBundles); none
// when Package names no package of the index.
type ListResult struct {
	Packages []model.PackageRow
	Channels []model.ChannelRow
	Bundles  []model.BundleRow
}

// Run resolves Index (pulling an image) and lists it; a bundle is
// refused.
func (l List) Run(ctx context.Context) (ListResult, error) {
	ref := l.Index
	in, err := l.resolve(ctx, ref, input.Either, false, input.PreferSQLite())
	if pulled(err) {
		return ListResult{}, err
	}
	if err != nil {
		return ListResult{}, fmt.Errorf("list %s: %w", ref, err)
	}
	defer in.Close()
	if in.Kind == input.KindBundle {
		return ListResult{}, fmt.Errorf("cannot list non-index %q", ref)
	}
	var res ListResult
	err = l.each(ctx, ref, in, func(pkg string, cfg *declcfg.DeclarativeConfig) error {
		if cfg == nil || l.Package != "" && pkg != l.Package {
			return nil
		}
		if err := cfg.ResolveBundleObjects(); err != nil {
			return fmt.Errorf("list %s: %w", ref, err)
		}
		m, err := model.FromDeclcfg(cfg)
		if err != nil {
			return fmt.Errorf("list %s: %w", ref, err)
		}
		res.Packages = append(res.Packages, model.ListPackages(m)...)
		res.Channels = append(res.Channels, model.ListChannels(m, "")...)
		res.Bundles = append(res.Bundles, model.ListBundles(m, "")...)
		return nil
	})
	return res, err
}

// each hands fn the blobs of every package of in, in name order: a
// directory or a sqlite index streamed (indexSource), a file loaded
// whole as Render loads it.
func (l List) each(ctx context.Context, ref string, in *input.Input, fn func(pkg string, cfg *declcfg.DeclarativeConfig) error) error {
	if in.Kind == input.KindSQLite || in.Kind == input.KindDeclcfg {
		var unread func(string) bool
		if l.Package != "" {
			unread = func(pkg string) bool { return pkg != l.Package }
		}
		return sourceOf(ctx, l.Legacy, ref, in).each(ctx, unread, fn)
	}
	cfg, err := Render{Env: l.Env, Legacy: l.Legacy}.Load(ctx, ref, in)
	if err != nil {
		return err
	}
	groups := declcfg.SplitByPackage(cfg)
	for _, pkg := range slices.Sorted(maps.Keys(groups)) {
		if err := fn(pkg, groups[pkg]); err != nil {
			return err
		}
	}
	return nil
}
