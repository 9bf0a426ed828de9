package legacyquery

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/operator-catalog/olmcat/internal/lru"
	"github.com/operator-catalog/olmcat/legacy"
	"github.com/operator-catalog/olmcat/registry"
	"github.com/operator-catalog/olmcat/registry/api"

	"github.com/operator-catalog/olmcat/internal/manifest"
)

// Option configures New.
type Option func(*options)

type options struct {
	omitManifests bool
	progress      func(done, total int)
}

// OmitManifests sets whether ListBundles leaves csvJson and object empty
// for bundles that have a bundle image (bundlePath != ""). The default is
// true, which is what `opm registry serve` and registry-server did (OLM's
// clients would otherwise exceed gRPC's default 4 MiB message size);
// false gives configmap-server's behaviour, where every bundle streams
// its manifests. Bundles without an image always stream them, and the
// GetBundle family always returns them.
func OmitManifests(omit bool) Option { return func(o *options) { o.omitManifests = omit } }

// WithProgress makes New call fn after each package it indexes, with the
// number done and the total, so a command can show start-up progress on
// large indexes.
func WithProgress(fn func(done, total int)) Option { return func(o *options) { o.progress = fn } }

// memberKey is one (package, channel, bundle) channel membership.
type memberKey struct{ pkg, channel, bundle string }

// chanKey is one channel of one package.
type chanKey struct{ pkg, channel string }

// entry is a channel_entry row, linked to the entry it replaces.
type entry struct {
	id       int64
	pkg      string
	channel  string
	bundle   string
	replaces int64 // entry id, 0 when NULL
	depth    int64
	// replacesName is the bundle name of the entry this one replaces; ""
	// when replaces is NULL or names no existing entry (the LEFT JOIN of
	// the sqlite queries yields NULL then).
	replacesName string
	// linked is true when replaces names an existing entry.
	linked bool
}

// pkgInfo is a package row with its channel rows.
type pkgInfo struct {
	name           string
	defaultChannel string
	channels       []legacy.Channel
}

// bundleInfo is the metadata of an operatorbundle row the server needs;
// manifests are fetched on demand.
type bundleInfo struct {
	name       string
	bundlePath string
	version    string
	skipRange  string
	// properties and dependencies are distinct (type, value) rows in
	// stored order, values as stored.
	properties   []*api.Property
	dependencies []*api.Dependency
	// provided are the olm.gvk properties, required the distinct olm.gvk
	// dependencies, in the same order.
	provided []manifest.GVK
	required []manifest.GVK
}

// listRow is one ListBundles message before its bundle fields are filled.
type listRow struct {
	b        *bundleInfo
	pkg      string
	channel  string
	replaces string
	skips    []string
}

// Querier answers registry.Querier from a legacy index the way
// `opm registry serve` (operator-registry's SQLQuerier with
// OmitManifests(true)) did. It is safe for concurrent use: the index is
// read-only after New and manifests are read through the database's
// connection pool.
type Querier struct {
	db   *legacy.DB
	opts options

	packageNames []string
	packages     map[string]*pkgInfo
	bundles      map[string]*bundleInfo
	entries      map[int64]*entry
	// byBundle lists the entries naming a bundle, by entry id.
	byBundle map[string][]*entry
	// members is the first entry id of every (package, channel, bundle).
	members map[memberKey]int64
	// replacedBy lists, by entry id, the entries whose replaces names an
	// entry of the given bundle name (real and synthetic skip edges).
	replacedBy map[string][]*entry
	// providers maps an olm.gvk property value, byte for byte, to the
	// bundles carrying it, in bundle-name order.
	providers map[string][]string
	plurals   map[manifest.GVK]string
	rows      []listRow
	repairs   []legacy.Repair
	// csvAt memoizes, by bundle name, which object of the bundle column
	// is the CSV (-1: none); see splitManifests.
	csvAt sync.Map
	// cache holds the most recently served bundle columns, split.
	cache *lru.Cache[string, *manifests]

	closeOnce sync.Once
	closeErr  error
}

var _ registry.Querier = (*Querier)(nil)

// New indexes every package of db and returns a Querier over it. The
// Querier owns db from then on: Close closes it (when New fails, db stays
// the caller's to close). db should be opened with
// legacy.SkipManifests() so the reader does not hold every CSV in memory
// while indexing; manifests are read per call with BundleManifests.
func New(ctx context.Context, db *legacy.DB, opts ...Option) (*Querier, error) {
	o := options{omitManifests: true}
	for _, opt := range opts {
		opt(&o)
	}
	q := &Querier{
		db:         db,
		opts:       o,
		packages:   map[string]*pkgInfo{},
		bundles:    map[string]*bundleInfo{},
		entries:    map[int64]*entry{},
		byBundle:   map[string][]*entry{},
		members:    map[memberKey]int64{},
		replacedBy: map[string][]*entry{},
		providers:  map[string][]string{},
		plurals:    map[manifest.GVK]string{},
		cache:      lru.New[string, *manifests](manifestCacheBytes),
	}
	names, err := db.PackageNames(ctx)
	if err != nil {
		return nil, fmt.Errorf("index %s: list packages: %w", db.Path(), err)
	}
	q.packageNames = names
	q.repairs = append(q.repairs, db.Repairs()...)
	if err := q.readPackages(ctx, names); err != nil {
		return nil, err
	}
	q.link()
	return q, nil
}

// readWorkers is how many packages are read at once: the reader's pool
// has four connections and reading is mostly sqlite page decoding.
const readWorkers = 4

// readPackages reads the packages concurrently and indexes them in name
// order; at most readWorkers packages are held at a time, so memory
// stays bounded by the largest packages rather than the catalog.
func (q *Querier) readPackages(ctx context.Context, names []string) error {
	type result struct {
		pd  *legacy.PackageData
		err error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]chan result, len(names))
	for i := range results {
		results[i] = make(chan result, 1)
	}
	slots := make(chan struct{}, readWorkers)
	go func() {
		for i, name := range names {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			go func() {
				pd, err := q.db.ReadPackage(ctx, name)
				results[i] <- result{pd, err}
			}()
		}
	}()
	for i, name := range names {
		var r result
		select {
		case r = <-results[i]:
		case <-ctx.Done():
			return fmt.Errorf("index %s: %w", q.db.Path(), ctx.Err())
		}
		<-slots
		if r.err != nil {
			return fmt.Errorf("index %s: package %s: %w", q.db.Path(), name, r.err)
		}
		q.addPackage(r.pd)
		if q.opts.progress != nil {
			q.opts.progress(i+1, len(names))
		}
	}
	return nil
}

// addPackage copies what the server needs out of one package's rows.
func (q *Querier) addPackage(pd *legacy.PackageData) {
	q.packages[pd.Package.Name] = &pkgInfo{
		name:           pd.Package.Name,
		defaultChannel: pd.Package.DefaultChannel,
		channels:       pd.Channels,
	}
	q.repairs = append(q.repairs, pd.Repairs...)
	for _, e := range pd.Entries {
		if _, dup := q.entries[e.ID]; dup {
			continue // entry_id is the table's primary key; cannot repeat
		}
		q.entries[e.ID] = &entry{
			id:       e.ID,
			pkg:      e.Package,
			channel:  e.Channel,
			bundle:   e.Bundle,
			replaces: e.Replaces,
			depth:    e.Depth,
		}
	}
	for i := range pd.Bundles {
		b := &pd.Bundles[i]
		// operatorbundle.name is the table's primary key, so a bundle named
		// by two packages' entries is the same row: keep the first copy.
		if _, dup := q.bundles[b.Name]; dup {
			continue
		}
		q.bundles[b.Name] = newBundleInfo(b)
		for _, a := range b.ProvidedAPIs {
			q.addPlural(a)
		}
		for _, a := range b.RequiredAPIs {
			q.addPlural(a)
		}
	}
}

// addPlural records the api table's plural for a GVK.
func (q *Querier) addPlural(a legacy.API) {
	if a.Plural == "" {
		return
	}
	k := a.GVK
	if _, ok := q.plurals[k]; !ok {
		q.plurals[k] = a.Plural
	}
}

func newBundleInfo(b *legacy.Bundle) *bundleInfo {
	bi := &bundleInfo{
		name:       b.Name,
		bundlePath: b.BundlePath,
		version:    b.Version,
		skipRange:  b.SkipRange,
	}
	type tv struct{ t, v string }
	seen := map[tv]bool{}
	for _, p := range b.Properties {
		k := tv{p.Type, p.Value}
		if seen[k] {
			continue
		}
		seen[k] = true
		bi.properties = append(bi.properties, &api.Property{Type: p.Type, Value: p.Value})
		if p.Type == "olm.gvk" {
			var v manifest.GVK
			// A malformed value is still served as a property; it just
			// provides no API (opm would have failed the whole call).
			if json.Unmarshal([]byte(p.Value), &v) == nil {
				bi.provided = append(bi.provided, v)
			}
		}
	}
	clear(seen)
	for _, d := range b.Dependencies {
		k := tv{d.Type, d.Value}
		if seen[k] {
			continue
		}
		seen[k] = true
		bi.dependencies = append(bi.dependencies, &api.Dependency{Type: d.Type, Value: d.Value})
		if d.Type == "olm.gvk" {
			var v manifest.GVK
			if json.Unmarshal([]byte(d.Value), &v) == nil {
				bi.required = append(bi.required, v)
			}
		}
	}
	return bi
}

// link builds the lookup indexes and the ListBundles rows once every
// package has been read (entries may only be linked when all are known).
func (q *Querier) link() {
	ids := make([]int64, 0, len(q.entries))
	for id := range q.entries {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })

	for _, id := range ids {
		e := q.entries[id]
		if e.replaces != 0 {
			if t, ok := q.entries[e.replaces]; ok {
				e.linked = true
				e.replacesName = t.bundle
				q.replacedBy[t.bundle] = append(q.replacedBy[t.bundle], e)
			}
		}
		q.byBundle[e.bundle] = append(q.byBundle[e.bundle], e)
		k := memberKey{e.pkg, e.channel, e.bundle}
		if _, ok := q.members[k]; !ok {
			q.members[k] = id
		}
	}

	names := make([]string, 0, len(q.bundles))
	for n := range q.bundles {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		seen := map[string]bool{}
		for _, p := range q.bundles[n].properties {
			if p.Type != "olm.gvk" || seen[p.Value] {
				continue
			}
			seen[p.Value] = true
			q.providers[p.Value] = append(q.providers[p.Value], n)
		}
	}

	q.rows = q.listRows(ids)
}

// listRows computes ListBundles the way opm's listBundlesQuery did:
//   - the real replaces chain is every entry reachable, along replaces,
//     from the entries at the minimum depth of the whole channel_entry
//     table (normally 0, the channel heads);
//   - per (bundle, package, channel), replaces is the greatest name among
//     the entries replaced by that bundle's chain entries;
//   - skips are the names replaced by its entries that are not on the
//     chain (the synthetic skip edges), in entry order;
//   - only names with an operatorbundle row are listed.
//
// Rows are ordered by (bundle, package, channel), the GROUP BY order of
// the sqlite query.
func (q *Querier) listRows(ids []int64) []listRow {
	if len(ids) == 0 {
		return nil
	}
	minDepth := q.entries[ids[0]].depth
	for _, id := range ids {
		if d := q.entries[id].depth; d < minDepth {
			minDepth = d
		}
	}
	onChain := map[int64]bool{}
	var stack []*entry
	for _, id := range ids {
		if e := q.entries[id]; e.depth == minDepth {
			onChain[id] = true
			stack = append(stack, e)
		}
	}
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !e.linked || onChain[e.replaces] {
			continue
		}
		onChain[e.replaces] = true
		stack = append(stack, q.entries[e.replaces])
	}

	type group struct {
		replaces string
		skips    []string
	}
	groups := map[memberKey]*group{}
	for _, id := range ids {
		e := q.entries[id]
		k := memberKey{e.pkg, e.channel, e.bundle}
		g := groups[k]
		if g == nil {
			g = &group{}
			groups[k] = g
		}
		if !e.linked {
			continue
		}
		if onChain[id] {
			if e.replacesName > g.replaces {
				g.replaces = e.replacesName
			}
		} else {
			g.skips = append(g.skips, e.replacesName)
		}
	}

	rows := make([]listRow, 0, len(groups))
	for k, g := range groups {
		b, ok := q.bundles[k.bundle]
		if !ok {
			continue
		}
		rows = append(rows, listRow{b: b, pkg: k.pkg, channel: k.channel, replaces: g.replaces, skips: g.skips})
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.b.name != b.b.name {
			return a.b.name < b.b.name
		}
		if a.pkg != b.pkg {
			return a.pkg < b.pkg
		}
		return a.channel < b.channel
	})
	return rows
}

// Repairs are the repairs the legacy reader made or reported while the
// index was built (database-wide first, then per package), so a server
// can tell its user what it serves differently from the raw rows.
func (q *Querier) Repairs() []legacy.Repair { return q.repairs }

// Close closes the database. It is safe to call more than once.
func (q *Querier) Close() error {
	q.closeOnce.Do(func() { q.closeErr = q.db.Close() })
	return q.closeErr
}

// Healthy implements registry.HealthChecker: the database file must still
// be the one opened, since answers read it lazily.
func (q *Querier) Healthy() error { return q.db.Unchanged() }
