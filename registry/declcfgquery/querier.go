package declcfgquery

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/registry"
	"github.com/operator-catalog/olmcat/registry/api"
)

// Querier answers the registry API from prepared api messages. It is
// immutable after construction and safe for concurrent use; the messages
// it returns are shared and must not be modified.
type Querier struct {
	packages map[string]*pkgIndex
	names    []string // package names, sorted
	// bundles holds one message per channel membership, sorted by
	// (channel, package, bundle) as opm serve streams ListBundles.
	bundles []*api.Bundle
	// replacers are the GetChannelEntriesThatReplace answers, by the name
	// replaced or skipped, in bundles order.
	replacers map[string][]*api.ChannelEntry
	// providers and latest are the GetChannelEntriesThatProvide and
	// GetLatestChannelEntriesThatProvide answers by GVK, so no call scans
	// the catalog.
	providers map[manifest.GVK][]*api.ChannelEntry
	latest    map[manifest.GVK][]*api.ChannelEntry
	// snapshot, when the Querier was restored from a cache, is where the
	// manifests its bundle messages leave out are read from.
	snapshot *snapshot
	// files, when the Querier was loaded without a cache, is where the
	// manifests its bundle messages leave out are read from.
	files *fileSource
	stats Stats
}

var _ registry.Querier = (*Querier)(nil)

type pkgIndex struct {
	pkg      *api.Package
	channels map[string]*chanIndex
}

type chanIndex struct {
	name    string
	head    *api.Bundle
	bundles map[string]*api.Bundle
	sorted  []*api.Bundle // by bundle name, for deterministic scans
	// replacer is, by name, the first bundle of sorted whose replaces is
	// that name or whose skips include it (GetBundleThatReplaces).
	replacer map[string]*api.Bundle
}

// Stats describes how a Querier was built.
type Stats struct {
	Packages int
	Channels int
	// Bundles counts distinct bundles (package and name).
	Bundles int
	// ChannelEntries counts channel memberships (ListBundles messages).
	ChannelEntries int
	// FromCache is true when the Querier was restored from the cache
	// directory instead of being built from the catalog files.
	FromCache bool
	// CacheWritten is true when Load wrote a fresh cache snapshot.
	CacheWritten bool
	// CacheError is why the cache could not be used or written, if it
	// could not ("" otherwise). Cache problems never fail Load.
	CacheError string
}

// Stats reports how q was built.
func (q *Querier) Stats() Stats { return q.stats }

// New prepares a Querier from a validated model. The model is not kept:
// the Querier holds only the api messages (manifest strings are shared
// with the model, not copied).
func New(m *declcfg.Model) (*Querier, error) {
	var pkgs []*api.Package
	var bundles []*api.Bundle
	for _, name := range sortedNames(m.Packages) {
		p, bs, err := convertPackage(m.Packages[name], true)
		if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
		bundles = append(bundles, bs...)
	}
	return build(pkgs, bundles)
}

// convertPackage prepares the api messages of one package: the package
// with its channels, and one bundle message per channel membership
// (messages of the same bundle share its channel-independent fields).
// Without manifests, csvJson and object are left empty.
func convertPackage(mp *declcfg.ModelPackage, manifests bool) (*api.Package, []*api.Bundle, error) {
	var bundles []*api.Bundle
	p := &api.Package{Name: mp.Name, Deprecation: deprecation(mp.Deprecation)}
	if mp.DefaultChannel != nil {
		p.DefaultChannelName = mp.DefaultChannel.Name
	}
	shared := map[string]*bundleData{}
	for _, cn := range sortedNames(mp.Channels) {
		mc := mp.Channels[cn]
		head, err := mc.Head()
		if err != nil {
			return nil, nil, err
		}
		p.Channels = append(p.Channels, &api.Channel{Name: mc.Name, CsvName: head.Name, Deprecation: deprecation(mc.Deprecation)})
		for _, mb := range mc.Bundles {
			d, ok := shared[mb.Name]
			if !ok {
				if d, err = convertBundle(manifests, mb); err != nil {
					return nil, nil, fmt.Errorf("package %q, channel %q: %w", mp.Name, mc.Name, err)
				}
				shared[mb.Name] = d
			}
			bundles = append(bundles, &api.Bundle{
				CsvName:      mb.Name,
				PackageName:  mp.Name,
				ChannelName:  mc.Name,
				CsvJson:      d.csvJSON,
				Object:       d.objects,
				BundlePath:   mb.Image,
				ProvidedApis: d.provided,
				RequiredApis: d.required,
				Version:      d.version,
				SkipRange:    mb.SkipRange,
				Dependencies: d.dependencies,
				Properties:   d.properties,
				Replaces:     mb.Replaces,
				Skips:        mb.Skips,
				Deprecation:  deprecation(mb.Deprecation),
			})
		}
	}
	return p, bundles, nil
}

// sortedNames are a map's keys in order.
func sortedNames[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// build indexes prepared messages (from a model or a cache snapshot) and
// checks that they are consistent: every bundle's package and channel
// exist and every channel's head is one of its bundles.
func build(pkgs []*api.Package, bundles []*api.Bundle) (*Querier, error) {
	q := &Querier{packages: make(map[string]*pkgIndex, len(pkgs))}
	for _, p := range pkgs {
		if _, dup := q.packages[p.Name]; dup {
			return nil, fmt.Errorf("package %q listed twice", p.Name)
		}
		slices.SortFunc(p.Channels, func(a, b *api.Channel) int { return cmp.Compare(a.Name, b.Name) })
		pi := &pkgIndex{pkg: p, channels: make(map[string]*chanIndex, len(p.Channels))}
		for _, c := range p.Channels {
			pi.channels[c.Name] = &chanIndex{name: c.Name, bundles: map[string]*api.Bundle{}}
		}
		q.packages[p.Name] = pi
		q.names = append(q.names, p.Name)
		q.stats.Channels += len(p.Channels)
	}
	sort.Strings(q.names)
	slices.SortFunc(bundles, compareBundles)
	for _, b := range bundles {
		pi, ok := q.packages[b.PackageName]
		if !ok {
			return nil, fmt.Errorf("bundle %q: package %q not found", b.CsvName, b.PackageName)
		}
		ci, ok := pi.channels[b.ChannelName]
		if !ok {
			return nil, fmt.Errorf("bundle %q: package %q, channel %q not found", b.CsvName, b.PackageName, b.ChannelName)
		}
		if _, dup := ci.bundles[b.CsvName]; dup {
			return nil, fmt.Errorf("package %q, channel %q: bundle %q listed twice", b.PackageName, b.ChannelName, b.CsvName)
		}
		ci.bundles[b.CsvName] = b
		ci.sorted = append(ci.sorted, b) // bundles are sorted, so this is too
	}
	for _, p := range pkgs {
		pi := q.packages[p.Name]
		for _, c := range p.Channels {
			ci := pi.channels[c.Name]
			if ci.head = ci.bundles[c.CsvName]; ci.head == nil {
				return nil, fmt.Errorf("package %q, channel %q: head %q is not a bundle of the channel", p.Name, c.Name, c.CsvName)
			}
		}
	}
	q.bundles = bundles
	q.index()
	q.stats.Packages = len(pkgs)
	distinct := make(map[[2]string]struct{}, len(bundles))
	for _, b := range bundles {
		distinct[[2]string{b.PackageName, b.CsvName}] = struct{}{}
	}
	q.stats.Bundles = len(distinct)
	q.stats.ChannelEntries = len(bundles)
	return q, nil
}

// index precomputes the answers of the RPCs that would otherwise scan
// every bundle per call, in exactly the order those scans produced them.
func (q *Querier) index() {
	q.replacers = map[string][]*api.ChannelEntry{}
	q.providers = map[manifest.GVK][]*api.ChannelEntry{}
	q.latest = map[manifest.GVK][]*api.ChannelEntry{}
	for _, b := range q.bundles {
		e := entry(b, b.Replaces)
		q.replacers[b.Replaces] = append(q.replacers[b.Replaces], e)
		for _, s := range b.Skips {
			if s != b.Replaces {
				q.replacers[s] = append(q.replacers[s], e)
			}
		}
		for _, k := range providedGVKs(b) {
			q.providers[k] = append(q.providers[k], e)
			for _, s := range b.Skips {
				if s != b.Replaces {
					q.providers[k] = append(q.providers[k], entry(b, s))
				}
			}
		}
	}
	for _, n := range q.names {
		pi := q.packages[n]
		for _, c := range pi.pkg.Channels {
			ci := pi.channels[c.Name]
			ci.replacer = map[string]*api.Bundle{}
			for _, b := range ci.sorted {
				if _, ok := ci.replacer[b.Replaces]; !ok {
					ci.replacer[b.Replaces] = b
				}
				for _, s := range b.Skips {
					if _, ok := ci.replacer[s]; !ok {
						ci.replacer[s] = b
					}
				}
			}
			h := ci.head
			for _, k := range providedGVKs(h) {
				q.latest[k] = append(q.latest[k], entry(h, h.Replaces))
				for _, s := range h.Skips {
					if _, in := ci.bundles[s]; in && s != h.Replaces {
						q.latest[k] = append(q.latest[k], entry(h, s))
					}
				}
			}
		}
	}
}

// providedGVKs are b's provided APIs, each once, in first-seen order.
func providedGVKs(b *api.Bundle) []manifest.GVK {
	var out []manifest.GVK
	for _, g := range b.ProvidedApis {
		k := manifest.GVK{Group: g.Group, Version: g.Version, Kind: g.Kind}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

func compareBundles(a, b *api.Bundle) int {
	return cmp.Or(
		cmp.Compare(a.ChannelName, b.ChannelName),
		cmp.Compare(a.PackageName, b.PackageName),
		cmp.Compare(a.CsvName, b.CsvName),
	)
}
