package declcfgquery

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/registry"
	"github.com/operator-catalog/olmcat/registry/api"
)

// ListPackages returns every package name, sorted.
func (q *Querier) ListPackages(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return slices.Clone(q.names), nil
}

// GetPackage returns the package with its channels sorted by name, each
// with its computed head and deprecation.
func (q *Querier) GetPackage(ctx context.Context, name string) (*api.Package, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pi, ok := q.packages[name]
	if !ok {
		return nil, fmt.Errorf("package %q not found", registry.Clip(name))
	}
	return pi.pkg, nil
}

func (q *Querier) channel(pkgName, channelName string) (*chanIndex, error) {
	pi, ok := q.packages[pkgName]
	if !ok {
		return nil, fmt.Errorf("package %q not found", registry.Clip(pkgName))
	}
	ci, ok := pi.channels[channelName]
	if !ok {
		return nil, fmt.Errorf("package %q, channel %q not found", registry.Clip(pkgName), registry.Clip(channelName))
	}
	return ci, nil
}

// GetBundle returns one channel member without its replaces and skips
// (manifests included, even for bundles with an image).
func (q *Querier) GetBundle(ctx context.Context, pkgName, channelName, csvName string) (*api.Bundle, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ci, err := q.channel(pkgName, channelName)
	if err != nil {
		return nil, err
	}
	i, ok := q.member(ci, csvName)
	if !ok {
		return nil, fmt.Errorf("package %q, channel %q, bundle %q not found", registry.Clip(pkgName), registry.Clip(channelName), registry.Clip(csvName))
	}
	return q.trimmed(i)
}

// GetBundleForChannel returns the channel head, filled like GetBundle.
func (q *Querier) GetBundleForChannel(ctx context.Context, pkgName, channelName string) (*api.Bundle, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ci, err := q.channel(pkgName, channelName)
	if err != nil {
		return nil, err
	}
	return q.trimmed(ci.head)
}

// GetChannelEntriesThatReplace returns an entry for every channel member
// whose replaces is name, and one for every member that skips name (with
// replaces set to that member's own replaces, as opm serve reports it).
func (q *Querier) GetChannelEntriesThatReplace(ctx context.Context, name string) ([]*api.ChannelEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	members := q.replacersOf(name)
	if len(members) == 0 {
		return nil, fmt.Errorf("no channel entries found that replace %s", registry.Clip(name))
	}
	out := make([]*api.ChannelEntry, len(members))
	for k, mi := range members {
		out[k] = q.entry(edge{mi, -1})
	}
	return out, nil
}

// GetBundleThatReplaces returns the member of the channel that replaces or
// skips name (the first by bundle name when several do).
func (q *Querier) GetBundleThatReplaces(ctx context.Context, name, pkgName, channelName string) (*api.Bundle, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pi, ok := q.packages[pkgName]
	if !ok {
		return nil, fmt.Errorf("package %s not found", registry.Clip(pkgName))
	}
	ci, ok := pi.channels[channelName]
	if !ok {
		return nil, fmt.Errorf("package %q, channel %q not found", registry.Clip(pkgName), registry.Clip(channelName))
	}
	if i, ok := q.replacer(ci, name); ok {
		return q.trimmed(i)
	}
	return nil, fmt.Errorf("no entry found for package %q, channel %q", registry.Clip(pkgName), registry.Clip(channelName))
}

// GetChannelEntriesThatProvide returns, for every channel member that
// provides the GVK, an entry for its replaces edge and one per other skip
// (whether or not the skipped bundle is in the channel).
func (q *Querier) GetChannelEntriesThatProvide(ctx context.Context, group, version, kind string) ([]*api.ChannelEntry, error) {
	var edges []edge
	for _, mi := range q.providers[manifest.GVK{Group: group, Version: version, Kind: kind}] {
		edges = q.appendEdges(edges, mi)
	}
	return q.providerEntries(ctx, edges, group, version, kind)
}

// GetLatestChannelEntriesThatProvide looks only at channel heads: for each
// head that provides the GVK, an entry for its replaces edge and one per
// other skip that is a member of the channel.
func (q *Querier) GetLatestChannelEntriesThatProvide(ctx context.Context, group, version, kind string) ([]*api.ChannelEntry, error) {
	return q.providerEntries(ctx, q.latest[manifest.GVK{Group: group, Version: version, Kind: kind}], group, version, kind)
}

// providerEntries are the entries of the edges of the GVK, the not-found
// error when there are none.
func (q *Querier) providerEntries(ctx context.Context, edges []edge, group, version, kind string) ([]*api.ChannelEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(edges) == 0 {
		return nil, errNoProviders(group, version, kind)
	}
	out := make([]*api.ChannelEntry, len(edges))
	for k, e := range edges {
		out[k] = q.entry(e)
	}
	return out, nil
}

// GetBundleThatProvides returns the head of a default channel that
// provides the GVK, from the first package by name that has one.
func (q *Querier) GetBundleThatProvides(ctx context.Context, group, version, kind string) (*api.Bundle, error) {
	latest, err := q.GetLatestChannelEntriesThatProvide(ctx, group, version, kind)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(latest, func(a, b *api.ChannelEntry) int { return cmp.Compare(a.PackageName, b.PackageName) })
	for _, e := range latest {
		if q.packages[e.PackageName].pkg.DefaultChannelName != e.ChannelName {
			continue
		}
		return q.GetBundle(ctx, e.PackageName, e.ChannelName, e.BundleName)
	}
	return nil, fmt.Errorf("no entry found that provides group:%q version:%q kind:%q", registry.Clip(group), registry.Clip(version), registry.Clip(kind))
}

// ListBundles calls fn for every channel membership, sorted by (channel,
// package, bundle). csvJson and object are left out for bundles with an
// image, as opm serve does: clients pull those from the image, and the
// stream stays under gRPC's default message size.
func (q *Querier) ListBundles(ctx context.Context, fn func(*api.Bundle) error) error {
	for i := range q.members {
		if err := ctx.Err(); err != nil {
			return err
		}
		b, err := q.message(int32(i), true)
		if err != nil {
			return err
		}
		if q.bundlePath(&q.bundles[q.members[i].Bundle]) == "" {
			if b.CsvJson, b.Object, err = q.src.manifests(q, q.members[i].Bundle); err != nil {
				return err
			}
		}
		if err := fn(b); err != nil {
			return err
		}
	}
	return nil
}

func errNoProviders(group, version, kind string) error {
	return fmt.Errorf("no channel entries found that provide group:%q version:%q kind:%q", registry.Clip(group), registry.Clip(version), registry.Clip(kind))
}

// entry is the channel entry of an index edge.
func (q *Querier) entry(e edge) *api.ChannelEntry {
	m := &q.members[e.member]
	replaces := q.str(m.Replaces)
	if e.skip >= 0 {
		replaces = q.str(q.skipsOf(e.member)[e.skip])
	}
	b := &q.bundles[m.Bundle]
	return &api.ChannelEntry{PackageName: q.str(b.Pkg), ChannelName: q.str(m.Channel), BundleName: q.str(b.Name), Replaces: replaces}
}

// message assembles member i's api.Bundle without manifests; with edges,
// replaces and skips are filled (ListBundles), else left out (the
// single-bundle RPCs). Nested messages are the index's, shared.
func (q *Querier) message(i int32, edges bool) (*api.Bundle, error) {
	m := &q.members[i]
	rec := &q.bundles[m.Bundle]
	b := &api.Bundle{
		CsvName:      q.str(rec.Name),
		PackageName:  q.str(rec.Pkg),
		ChannelName:  q.str(m.Channel),
		BundlePath:   q.bundlePath(rec),
		ProvidedApis: q.apisOf(m.Bundle, providedAPI),
		RequiredApis: q.apisOf(m.Bundle, requiredAPI),
		Version:      q.str(rec.Version),
		SkipRange:    q.str(m.SkipRange),
		Dependencies: q.depsOf(m.Bundle),
		Properties:   q.properties(m.Bundle),
		Deprecation:  deprecation(q.str(m.Deprecation)),
	}
	if edges {
		b.Replaces, b.Skips = q.str(m.Replaces), q.skipNames(i)
	}
	return b, nil
}

// properties are bundle i's property messages, made per call from the index's
// distinct properties.
func (q *Querier) properties(i int32) []*api.Property {
	nums := q.propNums(i)
	if len(nums) == 0 {
		return nil
	}
	out := make([]*api.Property, len(nums))
	for k, n := range nums {
		p := &q.props[n]
		out[k] = &api.Property{Type: q.str(p.Type)}
		if p.Value == ownValue {
			rec := &q.bundles[i]
			out[k].Value = ownPackageValue(q.str(rec.Pkg), q.str(rec.Version))
		} else {
			out[k].Value = q.str(p.Value)
		}
	}
	return out
}

// trimmed is member i without replaces and skips (what the single-bundle
// RPCs return), with its manifests.
func (q *Querier) trimmed(i int32) (*api.Bundle, error) {
	b, err := q.message(i, false)
	if err != nil {
		return nil, err
	}
	if b.CsvJson, b.Object, err = q.src.manifests(q, q.members[i].Bundle); err != nil {
		return nil, err
	}
	return b, nil
}
