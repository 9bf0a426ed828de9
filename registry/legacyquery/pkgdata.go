package legacyquery

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/internal/strarena"
	"github.com/operator-catalog/olmcat/legacy"
	"github.com/operator-catalog/olmcat/registry/api"
)

// packageCacheBytes bounds the LRU of read packages by bytes (metadata
// only, sized as bundleInfo.size estimates it), so a package of large
// bundles takes the room of many small ones. RPCs for one package come in
// bursts (GetPackage, then GetBundle of its channel heads), and
// ListBundles walks bundles in name order, which keeps a package's
// bundles together. A client walking the catalog package by package also
// asks for replacers and providers in other packages, so the budget holds
// that neighbourhood; anything beyond it only grows with the part of the
// catalog a client has touched.
const packageCacheBytes = 2 << 20

// pkgData is what the Querier keeps of one package read with ReadPackage.
type pkgData struct {
	info pkgInfo
	// bundles are the package's bundles (operatorbundle rows its entries
	// name), as this package's read serves them.
	bundles map[string]*bundleInfo
	size    int64
}

// pkg returns the package's data, read on first use; nil when there is
// no such package row. Calls that miss the cache for the same package at
// once share one read: a client's concurrent calls about one package
// (parity makes eight at a time) would otherwise each read it. The read
// is not cancelled with one caller; each caller stops waiting when its
// own context ends. With manifests the caller is about to serve the
// package's manifests, and the read brings them along when withObjects
// allows (seeding the manifest cache: one walk of each row, not two).
func (q *Querier) pkg(ctx context.Context, name string, manifests bool) (*pkgData, error) {
	if p, ok := q.pkgs.Get(name); ok {
		return p, nil
	}
	if !q.knownPackage(name) {
		return nil, nil
	}
	objects := manifests && q.withObjects(name)
	read := q.reads.DoChan(name, func() (any, error) {
		if p, ok := q.pkgs.Get(name); ok { // read by a call that just finished
			return p, nil
		}
		return q.readPkg(context.WithoutCancel(ctx), name, objects)
	})
	select {
	case r := <-read:
		if r.Err != nil {
			return nil, r.Err
		}
		return r.Val.(*pkgData), nil
	case <-ctx.Done():
		return nil, fmt.Errorf("index %s: package %s: %w", q.db.Path(), name, ctx.Err())
	}
}

// readPkg reads a package and keeps it in the cache; with objects, its
// bundles' manifests too, into the manifest cache (see seed).
func (q *Querier) readPkg(ctx context.Context, name string, objects bool) (*pkgData, error) {
	read := q.db.ReadPackage
	if objects {
		read = q.db.ReadPackageWithObjects
	}
	pd, err := read(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("index %s: package %s: %w", q.db.Path(), name, err)
	}
	p := &pkgData{
		info:    pkgInfo{name: pd.Package.Name, defaultChannel: pd.Package.DefaultChannel, channels: pd.Channels},
		bundles: make(map[string]*bundleInfo, len(pd.Bundles)),
		size:    1 << 10,
	}
	gvks := gvkParser{}
	for i := range pd.Bundles {
		bi := newBundleInfo(&pd.Bundles[i], gvks)
		p.bundles[bi.name] = bi
		p.size += bi.size()
		if objects {
			q.seed(&pd.Bundles[i])
		}
	}
	q.pkgs.Add(name, p, p.size)
	return p, nil
}

// info returns the package's name, default channel and channels, read on
// first use and kept; nil when there is no such package row.
func (q *Querier) info(ctx context.Context, name string) (*pkgInfo, error) {
	if p, ok := q.infos.Load(name); ok {
		return p.(*pkgInfo), nil
	}
	pd, err := q.pkg(ctx, name, true)
	if err != nil || pd == nil {
		return nil, err
	}
	// A copy: a pointer into pd would keep all of pd (its bundles) alive
	// after the package LRU dropped it.
	info := pd.info
	p, _ := q.infos.LoadOrStore(name, &info)
	return p.(*pkgInfo), nil
}

// knownPackage reports whether name is a package row's name.
func (q *Querier) knownPackage(name string) bool {
	_, found := slices.BinarySearch(q.packageNames, name)
	return found
}

// bundle returns the served metadata of a bundle named by some package's
// entries (the read of its first such package by name); nil when the
// bundle has no operatorbundle row or no entry names it.
func (q *Querier) bundle(ctx context.Context, g *graph, name string) (*bundleInfo, error) {
	owner, ok := g.ownerOf(name)
	if !ok {
		return nil, nil
	}
	p, err := q.pkg(ctx, owner, true)
	if err != nil || p == nil {
		return nil, err
	}
	return p.bundles[name], nil
}

// served is the name id of a bundle the Querier serves (one with an
// operatorbundle row that some entry names); false for any other name.
func (g *graph) served(bundle string) (int32, bool) {
	id, ok := g.id(bundle)
	return id, ok && g.owner[id] >= 0
}

// size is about the bytes a bundleInfo holds: its strings, and per row
// an api message (with its pointer) or a GVK.
func (b *bundleInfo) size() int64 {
	n := int64(256 + len(b.name) + len(b.bundlePath) + len(b.version) + len(b.skipRange))
	for _, p := range b.properties {
		n += int64(96 + len(p.Type) + len(p.Value))
	}
	for _, d := range b.dependencies {
		n += int64(96 + len(d.Type) + len(d.Value))
	}
	for _, gs := range [][]manifest.GVK{b.provided, b.required} {
		for _, g := range gs {
			n += int64(48 + len(g.Group) + len(g.Version) + len(g.Kind))
		}
	}
	return n
}

// facts are what the provider RPCs and the plurals of the GetBundle
// family need from every bundle: which bundles carry each olm.gvk
// property value, and the api table's plural of every API a bundle
// provides or requires.
type facts struct {
	// providers maps an olm.gvk property value, byte for byte, to the
	// name ids (in the update graph) of the served bundles carrying it,
	// in id order, which is bundle-name order.
	providers map[string][]int32
	plurals   map[manifest.GVK]string
}

// facts collects the facts once: from the olm.gvk properties rows and the
// api tables when the reader serves those rows as stored
// (legacy.DB.StoredAPIs), else by reading every package once (not
// keeping them).
func (q *Querier) facts(ctx context.Context) (*facts, error) {
	q.factsOnce.Do(func() {
		q.factsVal, q.factsErr = q.readFacts(ctx)
	})
	return q.factsVal, q.factsErr
}

func (q *Querier) readFacts(ctx context.Context) (*facts, error) {
	stored, err := q.db.StoredAPIs(ctx)
	if err != nil {
		return nil, err
	}
	if stored {
		return q.storedFacts(ctx)
	}
	return q.packageFacts(ctx)
}

// storedFacts collects the facts from the rows of the bundles some
// package's entries name (the bundles the Querier serves).
func (q *Querier) storedFacts(ctx context.Context) (*facts, error) {
	g, err := q.graph(ctx)
	if err != nil {
		return nil, err
	}
	f := &facts{providers: map[string][]int32{}, plurals: map[manifest.GVK]string{}}
	var strs strarena.Arena
	err = q.db.GVKProperties(ctx, func(bundle, value string) error {
		if id, served := g.served(bundle); served {
			ids, ok := f.providers[value]
			if !ok {
				value = strs.Clone(value)
			}
			f.providers[value] = append(ids, id)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, ids := range f.providers {
		slices.Sort(ids)
	}
	f.pack()
	err = q.db.APIRows(ctx, func(bundle string, a legacy.API) error {
		if _, served := g.served(bundle); served && a.Plural != "" && f.plurals[a.GVK] != a.Plural {
			k := manifest.GVK{Group: strs.Clone(a.GVK.Group), Version: strs.Clone(a.GVK.Version), Kind: strs.Clone(a.GVK.Kind)}
			f.plurals[k] = strs.Clone(a.Plural)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// packageFacts collects the facts from every package as ReadPackage
// serves it.
func (q *Querier) packageFacts(ctx context.Context) (*facts, error) {
	g, err := q.graph(ctx)
	if err != nil {
		return nil, err
	}
	f := &facts{providers: map[string][]int32{}, plurals: map[manifest.GVK]string{}}
	provides := map[string][]string{} // bundle -> its distinct olm.gvk values
	for _, name := range q.packageNames {
		pd, err := q.db.ReadPackage(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("index %s: package %s: %w", q.db.Path(), name, err)
		}
		for i := range pd.Bundles {
			b := &pd.Bundles[i]
			// A bundle named by several packages is served as the first
			// package (by name) reads it.
			if _, dup := provides[b.Name]; dup {
				continue
			}
			provides[b.Name] = gvkValues(b.Properties)
			for _, as := range [][]legacy.API{b.ProvidedAPIs, b.RequiredAPIs} {
				for _, a := range as {
					if _, ok := f.plurals[a.GVK]; !ok && a.Plural != "" {
						f.plurals[a.GVK] = a.Plural
					}
				}
			}
		}
	}
	// Only served bundles (with a row, named by some entry) provide
	// through the graph; ids ascend in name order.
	for n, values := range provides {
		if id, served := g.served(n); served {
			for _, v := range values {
				f.providers[v] = append(f.providers[v], id)
			}
		}
	}
	for _, ids := range f.providers {
		slices.Sort(ids)
	}
	f.pack()
	return f, nil
}

// pack makes each provider list distinct and moves them all into one
// backing array: the facts stay for the whole life of the Querier, and
// lists grown one append at a time would each hold spare room in an
// allocation of its own.
func (f *facts) pack() {
	n := 0
	for v, ids := range f.providers {
		ids = slices.Compact(ids)
		f.providers[v] = ids
		n += len(ids)
	}
	all := make([]int32, 0, n)
	for v, ids := range f.providers {
		start := len(all)
		all = append(all, ids...)
		f.providers[v] = all[start:len(all):len(all)]
	}
}

// gvkValues are the distinct olm.gvk property values, in order.
func gvkValues(props []legacy.Property) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range props {
		if p.Type == declcfg.PropertyGVK && !seen[p.Value] {
			seen[p.Value] = true
			out = append(out, p.Value)
		}
	}
	return out
}

func newBundleInfo(b *legacy.Bundle, gvks gvkParser) *bundleInfo {
	bi := &bundleInfo{
		name:       b.Name,
		bundlePath: b.BundlePath,
		version:    b.Version,
		skipRange:  b.SkipRange,
	}
	bi.provided = distinctRows(len(b.Properties), func(i int) (string, string) {
		return b.Properties[i].Type, b.Properties[i].Value
	}, func(t, v string) { bi.properties = append(bi.properties, &api.Property{Type: t, Value: v}) }, gvks)
	bi.required = distinctRows(len(b.Dependencies), func(i int) (string, string) {
		return b.Dependencies[i].Type, b.Dependencies[i].Value
	}, func(t, v string) { bi.dependencies = append(bi.dependencies, &api.Dependency{Type: t, Value: v}) }, gvks)
	return bi
}

// distinctRows calls add with each of n (type, value) rows not seen
// before, in order, and returns the GVKs of the distinct olm.gvk rows. A
// malformed olm.gvk value is still served as a row; it just provides or
// requires no API (opm would have failed the whole call).
func distinctRows(n int, row func(int) (string, string), add func(t, v string), gvks gvkParser) []manifest.GVK {
	type tv struct{ t, v string }
	seen := map[tv]bool{}
	var out []manifest.GVK
	for i := range n {
		t, v := row(i)
		if seen[tv{t, v}] {
			continue
		}
		seen[tv{t, v}] = true
		add(t, v)
		if t == declcfg.PropertyGVK {
			if g, ok := gvks.parse(v); ok {
				out = append(out, g)
			}
		}
	}
	return out
}

// gvkParser decodes olm.gvk values, each distinct value once per package
// read: a package's bundles mostly provide and require the same APIs,
// and decoding every row's value took most of building the bundles.
type gvkParser map[string]parsedGVK

type parsedGVK struct {
	g  manifest.GVK
	ok bool // the value decodes
}

func (p gvkParser) parse(v string) (manifest.GVK, bool) {
	r, seen := p[v]
	if !seen {
		r.ok = json.Unmarshal([]byte(v), &r.g) == nil
		p[v] = r
	}
	return r.g, r.ok
}
