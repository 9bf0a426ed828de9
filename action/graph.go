package action

import (
	"context"
	"fmt"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/graph"
	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/migrate"
)

// Graph builds the upgrade graph of every channel of a catalog (olmcat
// graph), for the caller to draw: a bundle has none and is refused.
type Graph struct {
	Env
	Legacy Legacy
	// Ref is the catalog: a declarative config directory or file, a
	// legacy sqlite index, or an image of one. A bundle image or bundle
	// directory is an *input.BundleError.
	Ref string
	// Package and Channel, if set, keep only that package and the
	// channels of that name.
	Package, Channel string
}

// GraphResult is the graph built.
type GraphResult struct {
	Graph *graph.Graph
}

// Run resolves Ref and builds its graph.
func (g Graph) Run(ctx context.Context) (GraphResult, error) {
	in, err := g.resolve(ctx, g.Ref, input.Either, false)
	if err != nil {
		return GraphResult{}, resolveError("graph "+g.Ref, err)
	}
	defer in.Close()
	if in.Kind == input.KindBundle {
		// Resolved wanting either, so that a bundle directory is told
		// from a catalog directory too.
		if in.Image != "" {
			return GraphResult{}, &input.BundleError{Ref: in.Image, Image: true}
		}
		return GraphResult{}, &input.BundleError{Ref: g.Ref}
	}
	b := graph.NewBuilder(graph.WithPackage(g.Package), graph.WithChannel(g.Channel))
	if err := addToGraph(ctx, g.Env, g.Legacy, b, g.Ref, in); err != nil {
		return GraphResult{}, err
	}
	gr, err := b.Graph()
	if err != nil {
		return GraphResult{}, fmt.Errorf("graph %s: %w", g.Ref, err)
	}
	return GraphResult{Graph: gr}, nil
}

// RenderGraph builds the upgrade graphs of the packages of one or more
// indexes, as opm alpha render-graph does: an image holding both a
// sqlite index and declarative configs is read as its index, a bundle
// is added as Render renders it.
type RenderGraph struct {
	Env
	Legacy Legacy
	// Refs are the indexes: declarative config directories or files,
	// legacy sqlite indexes, or images of them.
	Refs []string
	// Package, if set, keeps only that package.
	Package string
}

// RenderGraphResult is the graph built.
type RenderGraphResult struct {
	Graph *graph.Graph
}

// Run resolves and adds each index in turn.
func (r RenderGraph) Run(ctx context.Context) (RenderGraphResult, error) {
	b := graph.NewBuilder(graph.WithPackage(r.Package))
	for _, ref := range r.Refs {
		in, err := r.resolve(ctx, ref, input.Either, false, input.PreferSQLite())
		if err != nil {
			return RenderGraphResult{}, resolveError("render-graph "+ref, err)
		}
		defer in.Close()
		if err := addToGraph(ctx, r.Env, r.Legacy, b, ref, in); err != nil {
			return RenderGraphResult{}, err
		}
	}
	g, err := b.Graph()
	return RenderGraphResult{Graph: g}, err
}

// addToGraph adds input in (ref as given) to b. A directory or a sqlite
// index is walked package by package (only the graph is kept, so memory
// follows the graph, not the catalog's bytes); with a package filter
// only that package is decoded. Other inputs are loaded as Render loads
// them.
func addToGraph(ctx context.Context, env Env, legacy Legacy, b *graph.Builder, ref string, in *input.Input) error {
	pkg := b.Package()
	add := func(_ string, cfg *declcfg.DeclarativeConfig) error { b.Add(cfg); return nil }
	switch {
	case in.Kind == input.KindDeclcfg && pkg != "":
		// One package: only its files are decoded, once.
		cfg, err := declcfg.LoadDir(ctx, in.Path, declcfg.WithPackages(pkg))
		if err != nil {
			return err
		}
		b.Add(cfg)
	case in.Kind == input.KindDeclcfg:
		if err := declcfg.EachPackage(ctx, in.Path, add); err != nil {
			return err
		}
	case in.Kind == input.KindSQLite:
		var mopts []migrate.Option
		if pkg != "" {
			mopts = append(mopts, migrate.WithPackages(pkg))
		}
		legacy.deprecated(ctx, ref, in.Path)
		rep, err := migrate.Each(ctx, in.Path, add, mopts...)
		legacy.converted(ref, rep, err)
		if err != nil {
			return fmt.Errorf("graph %s: %w", ref, err)
		}
	default:
		cfg, err := Render{Env: env, Legacy: legacy}.Load(ctx, ref, in)
		if err != nil {
			return err
		}
		b.Add(cfg)
	}
	return nil
}
