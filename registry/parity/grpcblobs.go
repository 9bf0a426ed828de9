package parity

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/registry/api"
	"github.com/operator-catalog/olmcat/registry/catalogdhttp"
)

// GRPCSide is the blob side of a catalog served over the registry gRPC
// API (OLM v0's view of it): ref is a live server (grpc://host:port,
// whose backend is given) or a local catalog, answered by olmcat's
// registry server in process. Its blobs are rebuilt from ListPackages,
// GetPackage and ListBundles: an olm.package blob per package (name and
// default channel), an olm.channel blob per channel (its entries' names,
// replaces, skips and skipRange), an olm.bundle blob per bundle (name,
// package, image and properties) and an olm.deprecations blob per package
// with deprecations. What that API has no field for (see
// RuleNotCarriedByGRPC), and the olm.bundle.object and olm.csv.metadata
// properties it serves as manifests instead (compared by Check's
// GetBundle), are not compared.
func GRPCSide(ref string, kind, backend input.Kind) BlobSide {
	return BlobSide{Ref: ref, Kind: kind, Backend: backend, Rebuilt: true,
		Blobs: func(ctx context.Context, emit catalogdhttp.Emit) error { return rebuild(ctx, ref, emit) }}
}

// rebuild emits the blobs of the catalog ref serves over gRPC, package by
// package in name order, with ListBundles spilled to disk.
func rebuild(ctx context.Context, ref string, emit catalogdhttp.Emit) (err error) {
	s, err := openSide(ctx, ref, false)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, s.close()) }()
	lp, err := invoke(ctx, s.client, call{rpc: RPCListPackages})
	if err != nil {
		return fmt.Errorf("%s: %w", ref, err)
	}
	if lp.err != nil {
		return fmt.Errorf("%s: %s: %w", ref, RPCListPackages, lp.err)
	}
	sp, err := newSpill("")
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, sp.close()) }()
	answerErr, err := streamBundles(ctx, s, sp)
	switch {
	case err != nil:
		return err
	case answerErr != nil:
		return fmt.Errorf("%s: %s: %w", ref, RPCListBundles, answerErr)
	}
	names := slices.Clone(lp.names)
	for _, n := range sp.pkgs {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, pkg := range names {
		if err := rebuildPackage(ctx, s, sp, pkg, emit); err != nil {
			return err
		}
	}
	return sp.failed()
}

// rebuildPackage emits the blobs of one package.
func rebuildPackage(ctx context.Context, s *side, sp *spill, pkg string, emit catalogdhttp.Emit) error {
	p, err := s.client.GetPackage(ctx, &api.GetPackageRequest{Name: pkg})
	if err != nil && transportError(err) {
		return fmt.Errorf("%s: %s {name=%s}: %w", s.ref, RPCGetPackage, pkg, err)
	}
	if err != nil {
		p = &api.Package{Name: pkg} // only ListBundles names it: its bundles still count
	}
	bundles, err := sp.bundles(pkg)
	if err != nil {
		return err
	}
	where := fmt.Sprintf("%s (package %s)", s.ref, pkg)
	var blobs []any
	blobs = append(blobs, map[string]any{"schema": BlobPackage, "name": pkg, "defaultChannel": p.DefaultChannelName})
	channels := map[string][]map[string]any{}
	var order []string
	for _, ch := range p.Channels {
		channels[ch.Name] = []map[string]any{}
		order = append(order, ch.Name)
	}
	seen := map[string]bool{}
	var dep deprecations
	dep.add(p.Deprecation, map[string]any{"schema": BlobPackage})
	for _, ch := range p.Channels {
		dep.add(ch.Deprecation, map[string]any{"schema": BlobChannel, "name": ch.Name})
	}
	for _, b := range bundles {
		if _, ok := channels[b.ChannelName]; !ok {
			order = append(order, b.ChannelName)
		}
		channels[b.ChannelName] = append(channels[b.ChannelName], entryOf(b))
		if seen[b.CsvName] {
			continue
		}
		seen[b.CsvName] = true
		blobs = append(blobs, bundleOf(b))
		dep.add(b.Deprecation, map[string]any{"schema": BlobBundle, "name": b.CsvName})
	}
	for _, ch := range order {
		blobs = append(blobs, map[string]any{"schema": BlobChannel, "package": pkg, "name": ch, "entries": channels[ch]})
	}
	if len(dep) > 0 {
		blobs = append(blobs, map[string]any{"schema": BlobDeprecations, "package": pkg, "entries": []map[string]any(dep)})
	}
	for i, b := range blobs {
		data, err := json.Marshal(b)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if err := emit(data, where, i); err != nil {
			return err
		}
	}
	return nil
}

// entryOf is b's entry in its channel.
func entryOf(b *api.Bundle) map[string]any {
	e := map[string]any{"name": b.CsvName}
	if b.Replaces != "" {
		e["replaces"] = b.Replaces
	}
	if len(b.Skips) > 0 {
		e["skips"] = b.Skips
	}
	if b.SkipRange != "" {
		e["skipRange"] = b.SkipRange
	}
	return e
}

// bundleOf is b's olm.bundle blob, with its image even when empty (as
// opm writes a bundle of inline manifests; the API cannot tell an empty
// image from none); a property whose value is not JSON is kept as a
// string, which then differs.
func bundleOf(b *api.Bundle) map[string]any {
	props := make([]map[string]any, 0, len(b.Properties))
	for _, p := range b.Properties {
		var v any = p.Value
		if json.Valid([]byte(p.Value)) {
			v = json.RawMessage(p.Value)
		}
		props = append(props, map[string]any{"type": p.Type, "value": v})
	}
	return map[string]any{"schema": BlobBundle, "name": b.CsvName, "package": b.PackageName, "image": b.BundlePath, "properties": props}
}

// deprecations are the entries of a package's olm.deprecations blob.
type deprecations []map[string]any

func (d *deprecations) add(dep *api.Deprecation, reference map[string]any) {
	if dep != nil {
		*d = append(*d, map[string]any{"reference": reference, "message": dep.Message})
	}
}
