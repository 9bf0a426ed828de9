package legacyquery

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/operator-catalog/olmcat/registry"
	"github.com/operator-catalog/olmcat/registry/api"

	"github.com/operator-catalog/olmcat/internal/manifest"
)

// errNoCSV is opm's error for a bundle column holding no
// ClusterServiceVersion object; kept verbatim for parity.
var errNoCSV = errors.New("no csv in bundle")

// ListPackages returns every package row's name (sorted), including
// packages without channels, as `SELECT DISTINCT name FROM package` did.
func (q *Querier) ListPackages(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return append([]string(nil), q.packageNames...), nil
}

// GetPackage returns a package with its channels in stored order; each
// channel's csvName is the stored head (channel.head_operatorbundle_name),
// not a computed one. A package without channels is "not found", as the
// sqlite INNER JOIN made it. Deprecation is never set.
func (q *Querier) GetPackage(ctx context.Context, name string) (*api.Package, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := q.info(ctx, name)
	if err != nil {
		return nil, err
	}
	if p == nil || len(p.channels) == 0 {
		return nil, fmt.Errorf("package %s not found", registry.Clip(name))
	}
	out := &api.Package{Name: p.name, DefaultChannelName: p.defaultChannel}
	for _, c := range p.channels {
		out.Channels = append(out.Channels, &api.Channel{Name: c.Name, CsvName: c.Head})
	}
	return out, nil
}

// GetBundle returns a bundle that has a channel entry (a dummy skip entry
// counts) in the package's channel. csvJson and object come from the
// bundle column (empty when it is NULL), providedApis/requiredApis carry
// the api table's plural, replaces and skips are never set.
func (q *Querier) GetBundle(ctx context.Context, pkgName, channelName, csvName string) (*api.Bundle, error) {
	g, err := q.graph(ctx)
	if err != nil {
		return nil, err
	}
	var b *bundleInfo
	if g.member(pkgName, channelName, csvName) {
		if b, err = q.bundle(ctx, g, csvName); err != nil {
			return nil, err
		}
	}
	if b == nil {
		return nil, fmt.Errorf("no entry found for %s %s %s", registry.Clip(pkgName), registry.Clip(channelName), registry.Clip(csvName))
	}
	return q.fullBundle(ctx, b, pkgName, channelName)
}

// GetBundleForChannel returns the stored head of a channel, trimmed the
// way opm has since v1.18.1: only csvName and csvJson, the latter from
// the csv column, read alone as opm reads it (so with its trailing
// newline; "" when NULL; a bundle column that does not split does not
// fail it). The head must be a bundle row with an entry in the channel.
func (q *Querier) GetBundleForChannel(ctx context.Context, pkgName, channelName string) (*api.Bundle, error) {
	head, ok, err := q.head(ctx, pkgName, channelName)
	if err != nil {
		return nil, err
	}
	if ok {
		g, err := q.graph(ctx)
		if err != nil {
			return nil, err
		}
		_, isBundle := g.ownerOf(head)
		ok = isBundle && g.member(pkgName, channelName, head)
	}
	if !ok {
		return nil, fmt.Errorf("no entry found for %s %s", registry.Clip(pkgName), registry.Clip(channelName))
	}
	csv, err := q.db.BundleCSV(ctx, head)
	if err != nil {
		return nil, fmt.Errorf("read manifests of bundle %s: %w", head, err)
	}
	return &api.Bundle{CsvName: head, CsvJson: string(csv)}, nil
}

func (q *Querier) head(ctx context.Context, pkgName, channelName string) (string, bool, error) {
	p, err := q.info(ctx, pkgName)
	if err != nil || p == nil {
		return "", false, err
	}
	for _, c := range p.channels {
		if c.Name == channelName {
			return c.Head, true, nil
		}
	}
	return "", false, nil
}

// GetChannelEntriesThatReplace returns every (package, channel, bundle)
// with an entry whose replaces points at an entry named name: real
// replaces edges and synthetic skip edges alike. replaces is always the
// requested name, as in opm. Entries come in entry_id order.
func (q *Querier) GetChannelEntriesThatReplace(ctx context.Context, name string) ([]*api.ChannelEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g, err := q.graph(ctx)
	if err != nil {
		return nil, err
	}
	type member struct{ pkg, channel, bundle int32 }
	seen := map[member]bool{}
	var out []*api.ChannelEntry
	for _, i := range g.replacersOf(name) {
		e := &g.entries[i]
		k := member{e.pkg, e.channel, e.bundle}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, &api.ChannelEntry{PackageName: g.names[e.pkg], ChannelName: g.names[e.channel], BundleName: g.names[e.bundle], Replaces: name})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no channel entries found that replace %s", registry.Clip(name))
	}
	return out, nil
}

// GetBundleThatReplaces returns a bundle whose entry in the channel
// replaces (or, through a synthetic skip edge, skips) an entry named name
// in that channel. When several qualify, opm's LIMIT 1 took whatever the
// query planner met first; this Querier takes the replacer of name's
// lowest entry_id that has one, and among its replacers the lowest
// entry_id: deterministic, and what a rowid-order scan yields.
func (q *Querier) GetBundleThatReplaces(ctx context.Context, name, pkgName, channelName string) (*api.Bundle, error) {
	g, err := q.graph(ctx)
	if err != nil {
		return nil, err
	}
	var targets []int32
	for _, i := range g.entriesOf(name) {
		if e := &g.entries[i]; g.names[e.pkg] == pkgName && g.names[e.channel] == channelName {
			targets = append(targets, i)
		}
	}
	for _, t := range targets {
		for _, i := range g.replacersOf(name) {
			r := &g.entries[i]
			if r.replaces != t {
				continue
			}
			b, err := q.bundle(ctx, g, g.names[r.bundle])
			if err != nil {
				return nil, err
			}
			if b != nil {
				return q.fullBundle(ctx, b, pkgName, channelName)
			}
		}
	}
	return nil, fmt.Errorf("no entry found for %s %s", registry.Clip(pkgName), registry.Clip(channelName))
}

// gvkProperty is the olm.gvk property value opm compared byte for byte.
func gvkProperty(group, version, kind string) string {
	return manifest.GVK{Group: group, Version: version, Kind: kind}.PropertyValue()
}

// providerEntries are the indexes of the entries of bundles with an
// olm.gvk property byte-equal to the GVK's value, in entry order.
func (q *Querier) providerEntries(ctx context.Context, group, version, kind string) (*graph, []int32, error) {
	g, err := q.graph(ctx)
	if err != nil {
		return nil, nil, err
	}
	f, err := q.facts(ctx)
	if err != nil {
		return nil, nil, err
	}
	var out []int32
	for _, b := range f.providers[gvkProperty(group, version, kind)] {
		out = append(out, g.byBundle.of(b)...)
	}
	slices.Sort(out)
	return g, out, nil
}

// GetChannelEntriesThatProvide returns, for every entry of a bundle that
// provides the GVK, (package, channel, bundle, name of the replaced
// entry), distinct: one entry per real and per synthetic edge, plus ""
// for entries that replace nothing (chain tails, dummy skip entries).
func (q *Querier) GetChannelEntriesThatProvide(ctx context.Context, group, version, kind string) ([]*api.ChannelEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g, entries, err := q.providerEntries(ctx, group, version, kind)
	if err != nil {
		return nil, err
	}
	type key struct {
		pkg, channel, bundle int32
		replaces             string
	}
	seen := map[key]bool{}
	var out []*api.ChannelEntry
	for _, i := range entries {
		e := &g.entries[i]
		k := key{e.pkg, e.channel, e.bundle, g.replacesName(e)}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, g.channelEntry(e))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no channel entries found that provide %s %s %s", registry.Clip(group), registry.Clip(version), registry.Clip(kind))
	}
	return out, nil
}

// latestProviders groups provider entries by (package, channel) and keeps
// the one nearest the head (minimum depth; on a tie, the lowest
// entry_id), in (package, channel) order, as opm's GROUP BY with MIN(depth).
func (q *Querier) latestProviders(ctx context.Context, group, version, kind string) (*graph, []*entry, error) {
	g, entries, err := q.providerEntries(ctx, group, version, kind)
	if err != nil {
		return nil, nil, err
	}
	type channel struct{ pkg, channel int32 }
	best := map[channel]*entry{}
	for _, i := range entries {
		e := &g.entries[i]
		k := channel{e.pkg, e.channel}
		if cur, ok := best[k]; !ok || e.depth < cur.depth {
			best[k] = e
		}
	}
	out := make([]*entry, 0, len(best))
	for _, e := range best {
		out = append(out, e)
	}
	// Name ids compare as the names do.
	slices.SortFunc(out, func(a, b *entry) int { return cmp.Or(cmp.Compare(a.pkg, b.pkg), cmp.Compare(a.channel, b.channel)) })
	return g, out, nil
}

// channelEntry is the api message of e, with the name of the entry it
// replaces.
func (g *graph) channelEntry(e *entry) *api.ChannelEntry {
	return &api.ChannelEntry{PackageName: g.names[e.pkg], ChannelName: g.names[e.channel], BundleName: g.names[e.bundle], Replaces: g.replacesName(e)}
}

// GetLatestChannelEntriesThatProvide returns one entry per channel: the
// provider nearest the channel head, even when the head itself does not
// provide the GVK, with that entry's replaced name.
func (q *Querier) GetLatestChannelEntriesThatProvide(ctx context.Context, group, version, kind string) ([]*api.ChannelEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g, latest, err := q.latestProviders(ctx, group, version, kind)
	if err != nil {
		return nil, err
	}
	var out []*api.ChannelEntry
	for _, e := range latest {
		out = append(out, g.channelEntry(e))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no channel entries found that provide %s %s %s", registry.Clip(group), registry.Clip(version), registry.Clip(kind))
	}
	return out, nil
}

// GetBundleThatProvides (the GetDefaultBundleThatProvides RPC) returns the
// nearest-to-head provider of the GVK in a package's default channel,
// taking the lowest package name when several packages qualify (opm took
// the first GROUP BY row). As in opm it is "not found" when that
// provider's bundle column is NULL, even if another package would do.
func (q *Querier) GetBundleThatProvides(ctx context.Context, group, version, kind string) (*api.Bundle, error) {
	notFound := fmt.Errorf("no entry found that provides %s %s %s", registry.Clip(group), registry.Clip(version), registry.Clip(kind))
	g, latest, err := q.latestProviders(ctx, group, version, kind)
	if err != nil {
		return nil, err
	}
	for _, e := range latest {
		pkg, channel := g.names[e.pkg], g.names[e.channel]
		p, err := q.info(ctx, pkg)
		if err != nil {
			return nil, err
		}
		if p == nil || p.defaultChannel != channel {
			continue
		}
		b, err := q.bundle(ctx, g, g.names[e.bundle])
		if err != nil {
			return nil, err
		}
		if b == nil {
			continue
		}
		m, err := q.manifests(ctx, b.name)
		if err != nil {
			return nil, err
		}
		if m.null {
			return nil, notFound
		}
		return q.bundleWithManifests(ctx, b, pkg, channel, m)
	}
	return nil, notFound
}

// ListBundles calls fn with one bundle per (bundle, package, channel)
// membership, as opm's listBundlesQuery: replaces from the real chain,
// skips from the synthetic skip edges, properties and dependencies
// distinct in stored order, providedApis/requiredApis without plural,
// deprecated bundles included. With OmitManifests (the default) csvJson
// and object are only filled for bundles without an image.
//
// Unlike opm, rows whose version or bundlepath column is NULL are not
// dropped: the legacy reader repairs NULL versions from the CSV and reads
// a NULL bundlepath as "", and the repaired values are served.
func (q *Querier) ListBundles(ctx context.Context, fn func(*api.Bundle) error) error {
	g, err := q.graph(ctx)
	if err != nil {
		return err
	}
	// The rows come in bundle-name order, which keeps each package's
	// bundles mostly together: the last package read is held here even
	// when it is too large for the package cache.
	var last *pkgData
	return g.eachRow(func(r *listRow) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if last == nil || last.info.name != r.owner {
			if last, err = q.pkg(ctx, r.owner, !q.opts.omitManifests); err != nil {
				return err
			}
		}
		b := last.bundles[r.bundle]
		if b == nil {
			return fmt.Errorf("index %s: bundle %s: not read with package %s", q.db.Path(), r.bundle, r.owner)
		}
		return q.listBundle(ctx, b, r, fn)
	})
}

// listBundle calls fn with the ListBundles message of row r, bundle b.
func (q *Querier) listBundle(ctx context.Context, b *bundleInfo, r *listRow, fn func(*api.Bundle) error) error {
	out := &api.Bundle{}
	if b.bundlePath == "" || !q.opts.omitManifests {
		m, err := q.manifests(ctx, b.name)
		if err != nil {
			return err
		}
		if m.err != nil {
			return fmt.Errorf("bundle %s: %w", b.name, m.err)
		}
		out.CsvJson, out.Object = m.csv, m.objs
	}
	out.CsvName = b.name
	out.PackageName = r.pkg
	out.ChannelName = r.channel
	out.BundlePath = b.bundlePath
	out.Version = b.version
	out.SkipRange = b.skipRange
	out.Replaces = r.replaces
	out.Skips = r.skips
	out.Dependencies = b.dependencies
	out.Properties = b.properties
	out.ProvidedApis = apis(b.provided, nil)
	out.RequiredApis = apis(b.required, nil)
	return fn(out)
}

// fullBundle is the GetBundle-family answer for b in pkg/channel.
func (q *Querier) fullBundle(ctx context.Context, b *bundleInfo, pkg, channel string) (*api.Bundle, error) {
	m, err := q.manifests(ctx, b.name)
	if err != nil {
		return nil, err
	}
	return q.bundleWithManifests(ctx, b, pkg, channel, m)
}

// bundleWithManifests fills a GetBundle-family answer: objects from the
// bundle column, plural filled from the api table.
func (q *Querier) bundleWithManifests(ctx context.Context, b *bundleInfo, pkg, channel string, m *manifests) (*api.Bundle, error) {
	if m.err != nil {
		return nil, m.err
	}
	f, err := q.facts(ctx)
	if err != nil {
		return nil, err
	}
	out := &api.Bundle{CsvJson: m.csv, Object: m.objs}
	out.CsvName = b.name
	out.PackageName = pkg
	out.ChannelName = channel
	out.BundlePath = b.bundlePath
	out.Version = b.version
	out.SkipRange = b.skipRange
	out.ProvidedApis = apis(b.provided, f.plurals)
	out.RequiredApis = apis(b.required, f.plurals)
	out.Dependencies = b.dependencies
	out.Properties = b.properties
	return out, nil
}

// splitManifests turns the bundle column's objects of bundle name into
// api strings and picks the ClusterServiceVersion as csvJson (no trailing
// newline): the first object that decodes as JSON with kind
// ClusterServiceVersion.
//
// objects must be freshly read for this call (BundleManifests scans into
// new buffers): the strings alias their bytes instead of copying them.
// Finding the CSV means decoding whole objects, the largest cost of a
// GetBundle-family call, so its position is remembered per bundle (the
// index is read-only; the same name always yields the same column).
func (q *Querier) splitManifests(g *graph, name string, objects [][]byte) (string, []string, error) {
	out := make([]string, len(objects))
	for i, o := range objects {
		out[i] = unsafe.String(unsafe.SliceData(o), len(o))
	}
	var id int32
	named := false
	if g != nil {
		id, named = g.id(name)
	}
	if named {
		if v := g.csvAt[id].Load(); v != 0 {
			if i := v - 2; i >= 0 && int(i) < len(out) {
				return out[i], out, nil
			}
			return "", nil, errNoCSV
		}
	}
	at := manifest.FindCSV(objects)
	if named && at < math.MaxInt32-2 {
		g.csvAt[id].Store(int32(at) + 2)
	}
	if at < 0 {
		return "", nil, errNoCSV
	}
	return out[at], out, nil
}

// apis converts GVKs to api messages, with the api table's plural from
// plurals (GetBundle family) or without (ListBundles: nil plurals).
func apis(gvks []manifest.GVK, plurals map[manifest.GVK]string) []*api.GroupVersionKind {
	if len(gvks) == 0 {
		return nil
	}
	out := make([]*api.GroupVersionKind, len(gvks))
	for i, g := range gvks {
		out[i] = &api.GroupVersionKind{Group: g.Group, Version: g.Version, Kind: g.Kind}
		if plurals != nil {
			out[i].Plural = plurals[g]
		}
	}
	return out
}
