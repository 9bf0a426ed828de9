package legacyquery

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"unsafe"

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
	p, ok := q.packages[name]
	if !ok || len(p.channels) == 0 {
		return nil, fmt.Errorf("package %s not found", name)
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
	b, ok := q.bundles[csvName]
	if _, member := q.members[memberKey{pkgName, channelName, csvName}]; !ok || !member {
		return nil, fmt.Errorf("no entry found for %s %s %s", pkgName, channelName, csvName)
	}
	return q.fullBundle(ctx, b, pkgName, channelName)
}

// GetBundleForChannel returns the stored head of a channel, trimmed the
// way opm has since v1.18.1: only csvName and csvJson, the latter from
// the csv column (so with its trailing newline; "" when NULL). The head
// must be a bundle row with an entry in the channel.
func (q *Querier) GetBundleForChannel(ctx context.Context, pkgName, channelName string) (*api.Bundle, error) {
	head, ok := q.head(pkgName, channelName)
	if ok {
		_, isBundle := q.bundles[head]
		_, member := q.members[memberKey{pkgName, channelName, head}]
		ok = isBundle && member
	}
	if !ok {
		return nil, fmt.Errorf("no entry found for %s %s", pkgName, channelName)
	}
	csv, _, err := q.db.BundleManifests(ctx, head)
	if err != nil {
		return nil, fmt.Errorf("read manifests of bundle %s: %w", head, err)
	}
	return &api.Bundle{CsvName: head, CsvJson: string(csv)}, nil
}

func (q *Querier) head(pkgName, channelName string) (string, bool) {
	p, ok := q.packages[pkgName]
	if !ok {
		return "", false
	}
	for _, c := range p.channels {
		if c.Name == channelName {
			return c.Head, true
		}
	}
	return "", false
}

// GetChannelEntriesThatReplace returns every (package, channel, bundle)
// with an entry whose replaces points at an entry named name: real
// replaces edges and synthetic skip edges alike. replaces is always the
// requested name, as in opm. Entries come in entry_id order.
func (q *Querier) GetChannelEntriesThatReplace(ctx context.Context, name string) ([]*api.ChannelEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	seen := map[memberKey]bool{}
	var out []*api.ChannelEntry
	for _, e := range q.replacedBy[name] {
		k := memberKey{e.pkg, e.channel, e.bundle}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, &api.ChannelEntry{PackageName: e.pkg, ChannelName: e.channel, BundleName: e.bundle, Replaces: name})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no channel entries found that replace %s", name)
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
	var targets []int64
	for _, e := range q.byBundle[name] {
		if e.pkg == pkgName && e.channel == channelName {
			targets = append(targets, e.id)
		}
	}
	for _, t := range targets {
		for _, r := range q.replacedBy[name] {
			if r.replaces != t {
				continue
			}
			if b, ok := q.bundles[r.bundle]; ok {
				return q.fullBundle(ctx, b, pkgName, channelName)
			}
		}
	}
	return nil, fmt.Errorf("no entry found for %s %s", pkgName, channelName)
}

// gvkProperty is the olm.gvk property value opm compared byte for byte.
func gvkProperty(group, version, kind string) string {
	return manifest.GVK{Group: group, Version: version, Kind: kind}.PropertyValue()
}

// providerEntries are the entries of bundles with an olm.gvk property
// byte-equal to the GVK's value, in entry_id order.
func (q *Querier) providerEntries(group, version, kind string) []*entry {
	var out []*entry
	for _, n := range q.providers[gvkProperty(group, version, kind)] {
		out = append(out, q.byBundle[n]...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// GetChannelEntriesThatProvide returns, for every entry of a bundle that
// provides the GVK, (package, channel, bundle, name of the replaced
// entry), distinct: one entry per real and per synthetic edge, plus ""
// for entries that replace nothing (chain tails, dummy skip entries).
func (q *Querier) GetChannelEntriesThatProvide(ctx context.Context, group, version, kind string) ([]*api.ChannelEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type key struct{ pkg, channel, bundle, replaces string }
	seen := map[key]bool{}
	var out []*api.ChannelEntry
	for _, e := range q.providerEntries(group, version, kind) {
		k := key{e.pkg, e.channel, e.bundle, e.replacesName}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, &api.ChannelEntry{PackageName: e.pkg, ChannelName: e.channel, BundleName: e.bundle, Replaces: e.replacesName})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no channel entries found that provide %s %s %s", group, version, kind)
	}
	return out, nil
}

// latestProviders groups provider entries by (package, channel) and keeps
// the one nearest the head (minimum depth; on a tie, the lowest
// entry_id), in (package, channel) order, as opm's GROUP BY with MIN(depth).
func (q *Querier) latestProviders(group, version, kind string) []*entry {
	best := map[chanKey]*entry{}
	for _, e := range q.providerEntries(group, version, kind) {
		k := chanKey{e.pkg, e.channel}
		if cur, ok := best[k]; !ok || e.depth < cur.depth {
			best[k] = e
		}
	}
	out := make([]*entry, 0, len(best))
	for _, e := range best {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].pkg != out[j].pkg {
			return out[i].pkg < out[j].pkg
		}
		return out[i].channel < out[j].channel
	})
	return out
}

// GetLatestChannelEntriesThatProvide returns one entry per channel: the
// provider nearest the channel head, even when the head itself does not
// provide the GVK, with that entry's replaced name.
func (q *Querier) GetLatestChannelEntriesThatProvide(ctx context.Context, group, version, kind string) ([]*api.ChannelEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []*api.ChannelEntry
	for _, e := range q.latestProviders(group, version, kind) {
		out = append(out, &api.ChannelEntry{PackageName: e.pkg, ChannelName: e.channel, BundleName: e.bundle, Replaces: e.replacesName})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no channel entries found that provide %s %s %s", group, version, kind)
	}
	return out, nil
}

// GetBundleThatProvides (the GetDefaultBundleThatProvides RPC) returns the
// nearest-to-head provider of the GVK in a package's default channel,
// taking the lowest package name when several packages qualify (opm took
// the first GROUP BY row). As in opm it is "not found" when that
// provider's bundle column is NULL, even if another package would do.
func (q *Querier) GetBundleThatProvides(ctx context.Context, group, version, kind string) (*api.Bundle, error) {
	notFound := fmt.Errorf("no entry found that provides %s %s %s", group, version, kind)
	for _, e := range q.latestProviders(group, version, kind) {
		p, ok := q.packages[e.pkg]
		if !ok || p.defaultChannel != e.channel {
			continue
		}
		b, ok := q.bundles[e.bundle]
		if !ok {
			continue
		}
		m, err := q.manifests(ctx, b.name)
		if err != nil {
			return nil, err
		}
		if m.null {
			return nil, notFound
		}
		return q.bundleWithManifests(b, e.pkg, e.channel, m)
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
	for i := range q.rows {
		if err := ctx.Err(); err != nil {
			return err
		}
		r := &q.rows[i]
		out := &api.Bundle{}
		if r.b.bundlePath == "" || !q.opts.omitManifests {
			m, err := q.manifests(ctx, r.b.name)
			if err != nil {
				return err
			}
			if m.err != nil {
				return fmt.Errorf("bundle %s: %w", r.b.name, m.err)
			}
			out.CsvJson, out.Object = m.csv, m.objs
		}
		out.CsvName = r.b.name
		out.PackageName = r.pkg
		out.ChannelName = r.channel
		out.BundlePath = r.b.bundlePath
		out.Version = r.b.version
		out.SkipRange = r.b.skipRange
		out.Replaces = r.replaces
		out.Skips = r.skips
		out.Dependencies = r.b.dependencies
		out.Properties = r.b.properties
		out.ProvidedApis = q.apis(r.b.provided, false)
		out.RequiredApis = q.apis(r.b.required, false)
		if err := fn(out); err != nil {
			return err
		}
	}
	return nil
}

// fullBundle is the GetBundle-family answer for b in pkg/channel.
func (q *Querier) fullBundle(ctx context.Context, b *bundleInfo, pkg, channel string) (*api.Bundle, error) {
	m, err := q.manifests(ctx, b.name)
	if err != nil {
		return nil, err
	}
	return q.bundleWithManifests(b, pkg, channel, m)
}

// bundleWithManifests fills a GetBundle-family answer: objects from the
// bundle column, plural filled from the api table.
func (q *Querier) bundleWithManifests(b *bundleInfo, pkg, channel string, m *manifests) (*api.Bundle, error) {
	if m.err != nil {
		return nil, m.err
	}
	out := &api.Bundle{CsvJson: m.csv, Object: m.objs}
	out.CsvName = b.name
	out.PackageName = pkg
	out.ChannelName = channel
	out.BundlePath = b.bundlePath
	out.Version = b.version
	out.SkipRange = b.skipRange
	out.ProvidedApis = q.apis(b.provided, true)
	out.RequiredApis = q.apis(b.required, true)
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
func (q *Querier) splitManifests(name string, objects [][]byte) (string, []string, error) {
	out := make([]string, len(objects))
	for i, o := range objects {
		out[i] = unsafe.String(unsafe.SliceData(o), len(o))
	}
	if v, ok := q.csvAt.Load(name); ok {
		if i := v.(int); i >= 0 && i < len(out) {
			return out[i], out, nil
		}
		return "", nil, errNoCSV
	}
	at := manifest.FindCSV(objects)
	q.csvAt.Store(name, at)
	if at < 0 {
		return "", nil, errNoCSV
	}
	return out[at], out, nil
}

// apis converts GVKs to api messages, with the api table's plural when
// withPlural (GetBundle family) and without (ListBundles).
func (q *Querier) apis(gvks []manifest.GVK, withPlural bool) []*api.GroupVersionKind {
	if len(gvks) == 0 {
		return nil
	}
	out := make([]*api.GroupVersionKind, len(gvks))
	for i, g := range gvks {
		out[i] = &api.GroupVersionKind{Group: g.Group, Version: g.Version, Kind: g.Kind}
		if withPlural {
			out[i].Plural = q.plurals[g]
		}
	}
	return out
}
