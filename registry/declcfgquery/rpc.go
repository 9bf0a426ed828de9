package declcfgquery

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/registry/api"
)

// packages returns the prepared package messages in name order.
func (q *Querier) packageList() []*api.Package {
	out := make([]*api.Package, 0, len(q.names))
	for _, n := range q.names {
		out = append(out, q.packages[n].pkg)
	}
	return out
}

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
		return nil, fmt.Errorf("package %q not found", name)
	}
	return pi.pkg, nil
}

func (q *Querier) channel(pkgName, channelName string) (*chanIndex, error) {
	pi, ok := q.packages[pkgName]
	if !ok {
		return nil, fmt.Errorf("package %q not found", pkgName)
	}
	ci, ok := pi.channels[channelName]
	if !ok {
		return nil, fmt.Errorf("package %q, channel %q not found", pkgName, channelName)
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
	b, ok := ci.bundles[csvName]
	if !ok {
		return nil, fmt.Errorf("package %q, channel %q, bundle %q not found", pkgName, channelName, csvName)
	}
	return q.trimmed(b)
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
	out := slices.Clone(q.replacers[name])
	if len(out) == 0 {
		return nil, fmt.Errorf("no channel entries found that replace %s", name)
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
		return nil, fmt.Errorf("package %s not found", pkgName)
	}
	ci, ok := pi.channels[channelName]
	if !ok {
		return nil, fmt.Errorf("package %q, channel %q not found", pkgName, channelName)
	}
	if b, ok := ci.replacer[name]; ok {
		return q.trimmed(b)
	}
	return nil, fmt.Errorf("no entry found for package %q, channel %q", pkgName, channelName)
}

// GetChannelEntriesThatProvide returns, for every channel member that
// provides the GVK, an entry for its replaces edge and one per other skip
// (whether or not the skipped bundle is in the channel).
func (q *Querier) GetChannelEntriesThatProvide(ctx context.Context, group, version, kind string) ([]*api.ChannelEntry, error) {
	return providerEntries(ctx, q.providers, group, version, kind)
}

// GetLatestChannelEntriesThatProvide looks only at channel heads: for each
// head that provides the GVK, an entry for its replaces edge and one per
// other skip that is a member of the channel.
func (q *Querier) GetLatestChannelEntriesThatProvide(ctx context.Context, group, version, kind string) ([]*api.ChannelEntry, error) {
	return providerEntries(ctx, q.latest, group, version, kind)
}

// providerEntries is a copy of the index entries of the GVK, the
// not-found error when there are none.
func providerEntries(ctx context.Context, index map[manifest.GVK][]*api.ChannelEntry, group, version, kind string) ([]*api.ChannelEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := slices.Clone(index[manifest.GVK{Group: group, Version: version, Kind: kind}])
	if len(out) == 0 {
		return nil, errNoProviders(group, version, kind)
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
	return nil, fmt.Errorf("no entry found that provides group:%q version:%q kind:%q", group, version, kind)
}

// ListBundles calls fn for every channel membership, sorted by (channel,
// package, bundle). csvJson and object are left out for bundles with an
// image, as opm serve does: clients pull those from the image, and the
// stream stays under gRPC's default message size.
func (q *Querier) ListBundles(ctx context.Context, fn func(*api.Bundle) error) error {
	for _, b := range q.bundles {
		if err := ctx.Err(); err != nil {
			return err
		}
		out := b
		if b.BundlePath != "" && (b.CsvJson != "" || len(b.Object) > 0) {
			out = stripped(b)
		} else if b.BundlePath == "" && (q.snapshot != nil || q.files != nil) {
			csv, objs, err := q.manifests(b)
			if err != nil {
				return err
			}
			if csv != b.CsvJson || len(objs) != len(b.Object) {
				out = stripped(b)
				out.CsvJson, out.Object = csv, objs
			}
		}
		if err := fn(out); err != nil {
			return err
		}
	}
	return nil
}

// Close closes the cache snapshot a restored Querier reads manifests
// from; a Querier built from files holds only memory.
func (q *Querier) Close() error {
	if q.snapshot == nil {
		return nil
	}
	return q.snapshot.f.Close()
}

func errNoProviders(group, version, kind string) error {
	return fmt.Errorf("no channel entries found that provide group:%q version:%q kind:%q", group, version, kind)
}

func entry(b *api.Bundle, replaces string) *api.ChannelEntry {
	return &api.ChannelEntry{PackageName: b.PackageName, ChannelName: b.ChannelName, BundleName: b.CsvName, Replaces: replaces}
}

// trimmed is b without replaces and skips (what the single-bundle RPCs
// return), with its manifests. Nested messages are shared, not copied.
func (q *Querier) trimmed(b *api.Bundle) (*api.Bundle, error) {
	csv, objs, err := q.manifests(b)
	if err != nil {
		return nil, err
	}
	return &api.Bundle{
		CsvName:      b.CsvName,
		PackageName:  b.PackageName,
		ChannelName:  b.ChannelName,
		CsvJson:      csv,
		Object:       objs,
		BundlePath:   b.BundlePath,
		ProvidedApis: b.ProvidedApis,
		RequiredApis: b.RequiredApis,
		Version:      b.Version,
		SkipRange:    b.SkipRange,
		Dependencies: b.Dependencies,
		Properties:   b.Properties,
		Deprecation:  b.Deprecation,
	}, nil
}

// stripped is b without csvJson and object.
func stripped(b *api.Bundle) *api.Bundle {
	return &api.Bundle{
		CsvName:      b.CsvName,
		PackageName:  b.PackageName,
		ChannelName:  b.ChannelName,
		BundlePath:   b.BundlePath,
		ProvidedApis: b.ProvidedApis,
		RequiredApis: b.RequiredApis,
		Version:      b.Version,
		SkipRange:    b.SkipRange,
		Dependencies: b.Dependencies,
		Properties:   b.Properties,
		Replaces:     b.Replaces,
		Skips:        b.Skips,
		Deprecation:  b.Deprecation,
	}
}
