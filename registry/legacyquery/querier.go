package legacyquery

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/singleflight"

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
}

// OmitManifests sets whether ListBundles leaves csvJson and object empty
// for bundles that have a bundle image (bundlePath != ""). The default is
// true, which is what `opm registry serve` and registry-server did (OLM's
// clients would otherwise exceed gRPC's default 4 MiB message size);
// false gives configmap-server's behaviour, where every bundle streams
// its manifests. Bundles without an image always stream them, and the
// GetBundle family always returns them.
func OmitManifests(omit bool) Option { return func(o *options) { o.omitManifests = omit } }

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

// Querier answers registry.Querier from a legacy index the way
// `opm registry serve` (operator-registry's SQLQuerier with
// OmitManifests(true)) did. It is safe for concurrent use.
//
// Nothing is read at New beyond what the legacy.DB read at Open. A
// package's rows are read when an RPC first needs them (legacy
// ReadPackage) and kept in an LRU; the catalog's update graph (every
// channel entry, linked) is read from channel_entry on the first RPC that
// crosses packages; which bundles provide which API, and the api table's
// plurals, on the first RPC that needs them. Manifests are read per call,
// or with their package (see withObjects).
// A package's channels and default channel stay once read.
type Querier struct {
	db   *legacy.DB
	opts options

	packageNames []string
	// pkgs holds recently read packages; reads shares a read among the
	// calls that miss it at once.
	pkgs  *lru.Cache[string, *pkgData]
	reads singleflight.Group
	// infos keeps every package's name, default channel and channel heads
	// once read (a few hundred bytes a package), so GetPackage and
	// GetBundleForChannel, which OLM calls for every package on each
	// catalog sync, never read a package again when the LRU dropped it.
	infos sync.Map // package name -> *pkgInfo

	graphOnce sync.Once
	graphVal  *graph
	graphErr  error
	graphRead atomic.Pointer[graph] // graphVal once read without error

	factsOnce sync.Once
	factsVal  *facts
	factsErr  error

	// cache holds the most recently served bundle columns, split.
	cache *lru.Cache[string, *manifests]
	// manifestsRead and manifestBytes count the non-empty bundle columns
	// read and their bytes, for withObjects' estimate.
	manifestsRead, manifestBytes atomic.Int64

	closeOnce sync.Once
	closeErr  error
}

var _ registry.Querier = (*Querier)(nil)

// New returns a Querier over db. The Querier owns db from then on: Close
// closes it (when New fails, db stays the caller's to close). db should
// be opened with legacy.Lazy() (so that Open reads nothing eagerly) and
// legacy.SkipManifests() (so that package reads leave the manifests,
// which calls read on demand, in the file).
func New(ctx context.Context, db *legacy.DB, opts ...Option) (*Querier, error) {
	o := options{omitManifests: true}
	for _, opt := range opts {
		opt(&o)
	}
	names, err := db.PackageNames(ctx)
	if err != nil {
		return nil, fmt.Errorf("index %s: list packages: %w", db.Path(), err)
	}
	return &Querier{
		db:           db,
		opts:         o,
		packageNames: names,
		pkgs:         lru.New[string, *pkgData](packageCacheBytes),
		cache:        lru.New[string, *manifests](manifestCacheBytes),
	}, nil
}

// Repairs are the repairs the legacy reader makes for the catalog
// (database-wide first, then per package in name order), so a caller can
// tell its user what is served differently from the raw rows. The
// catalog-wide checks need every table in view: Repairs opens the file
// again, eagerly, and reads every package once (without keeping them).
func (q *Querier) Repairs(ctx context.Context) ([]legacy.Repair, error) {
	db, err := legacy.Open(ctx, q.db.Path(), legacy.SkipManifests())
	if err != nil {
		return nil, err
	}
	defer db.Close()
	out := db.Repairs()
	for _, n := range q.packageNames {
		pd, err := db.ReadPackage(ctx, n)
		if err != nil {
			return nil, err
		}
		out = append(out, pd.Repairs...)
	}
	return out, nil
}

// Close closes the database. It is safe to call more than once.
func (q *Querier) Close() error {
	q.closeOnce.Do(func() { q.closeErr = q.db.Close() })
	return q.closeErr
}

// Healthy implements registry.HealthChecker: the database file must still
// be the one opened, since answers read it lazily.
func (q *Querier) Healthy() error { return q.db.Unchanged() }
