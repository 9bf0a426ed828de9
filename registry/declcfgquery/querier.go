package declcfgquery

import (
	"cmp"
	"slices"
	"sort"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg/model"
	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/registry"
	"github.com/operator-catalog/olmcat/registry/api"
)

// Querier answers the registry API from a compact index of the catalog's
// metadata. It is immutable after construction and safe for concurrent
// use; the messages it returns must not be modified.
//
// The index holds every string in one string table (strs) and records
// refer to them by number; each package's distinct properties, APIs and
// dependencies once (props, apis, deps); per
// distinct bundle, the numbers of its names and of its entries in those
// tables, all in one arena (bundleRec, nums); per channel membership,
// only the numbers of its channel, edges and deprecation (memberRec,
// skips). No record holds a string, slice or map of its own. An answer is
// assembled from those per call; manifests (csvJson, object) come from
// src.
type Querier struct {
	packages map[string]*pkgIndex
	names    []string // package names, sorted
	// bundles are the distinct bundles (package and name).
	bundles []bundleRec
	// members holds one record per channel membership, sorted by
	// (channel, package, bundle) as opm serve streams ListBundles.
	members []memberRec
	// props, apis and deps are the distinct properties, APIs and
	// dependencies of each package, which bundle records index. Their
	// messages are made per call: a message costs several times its
	// strings, and the strings are in strs.
	props []propRec
	apis  []apiRec
	deps  []depRec
	// nums holds the bundles' property numbers back to back (propNums),
	// so a bundle record holds no slices.
	nums []int32
	// strs holds every string of the index by number; skips holds every
	// membership's skips, as numbers in strs, back to back.
	strs  strTable
	skips []int32
	// replacers are the GetChannelEntriesThatReplace answers: an edge
	// (replacerName, replacerMember) per member and name it replaces or
	// skips, sorted by name then member, so a name's answer is a
	// contiguous run in members order.
	replacers []int32
	// providers are the members providing each GVK, in members order
	// (GetChannelEntriesThatProvide expands their edges per call); latest
	// are the GetLatestChannelEntriesThatProvide answers by GVK, so no
	// call scans the catalog.
	providers map[manifest.GVK][]int32
	latest    map[manifest.GVK][]edge
	// src reads a bundle's manifests.
	src   manifestSource
	stats Stats
}

var _ registry.Querier = (*Querier)(nil)

type pkgIndex struct {
	pkg      *api.Package
	channels map[string]*chanIndex
}

// chanIndex locates a channel's members: members sorts by (channel,
// package, bundle), so those of one channel of one package are the
// contiguous range [lo, hi), in bundle name order.
type chanIndex struct {
	lo, hi int32
	head   int32
}

// member is the index of the channel's member named name.
func (q *Querier) member(ci *chanIndex, name string) (int32, bool) {
	i, ok := slices.BinarySearchFunc(q.members[ci.lo:ci.hi], name, func(m memberRec, name string) int {
		return cmp.Compare(q.str(q.bundles[m.Bundle].Name), name)
	})
	return ci.lo + int32(i), ok
}

// replacer is the first member of the channel (by bundle name) whose
// replaces is name or whose skips include it.
func (q *Querier) replacer(ci *chanIndex, name string) (int32, bool) {
	for i := ci.lo; i < ci.hi; i++ {
		m := &q.members[i]
		if q.str(m.Replaces) == name {
			return i, true
		}
		for _, s := range q.skipsOf(i) {
			if q.str(s) == name {
				return i, true
			}
		}
	}
	return 0, false
}

// str is string n of the index.
func (q *Querier) str(n int32) string { return q.strs.str(n) }

// bundleRec is what the index keeps of a distinct bundle: the fields all
// its channel memberships have in common, as numbers in Querier.strs,
// its image as its repository and tag or digest (bundlePath), and its
// properties, Querier.nums[propLo:propHi] (bundles of a package
// with the same properties share one run). Its
// provided and required APIs and its dependencies are those its
// properties carry (propRec), in property order, as the conversion
// derives them.
type bundleRec struct {
	Pkg, Name, Version    int32
	BundleRepo, BundleRef int32
	PropLo, PropHi        int32
}

// bundlePath is rec's image: its repository (shared by the package's
// bundles, held once) and its tag or digest are held apart.
func (q *Querier) bundlePath(rec *bundleRec) string {
	return q.str(rec.BundleRepo) + q.str(rec.BundleRef)
}

// imageRepo is the part of image before its tag or digest (the last ':'
// or '@' after the last '/'), "" when it has neither.
func imageRepo(image string) string {
	i := strings.LastIndexAny(image, ":@")
	if i < 0 || i < strings.LastIndexByte(image, '/') {
		return ""
	}
	return image[:i]
}

// propNums are bundle i's properties, as numbers in Querier.props.
func (q *Querier) propNums(i int32) []int32 {
	b := &q.bundles[i]
	return q.nums[b.PropLo:b.PropHi:b.PropHi]
}

// apisOf are bundle i's provided or required APIs, in property order;
// nil for none.
func (q *Querier) apisOf(i int32, role apiRole) []*api.GroupVersionKind {
	var out []*api.GroupVersionKind
	for _, n := range q.propNums(i) {
		if p := &q.props[n]; p.Role == role {
			g := q.gvk(p.API)
			out = append(out, &api.GroupVersionKind{Group: g.Group, Version: g.Version, Kind: g.Kind})
		}
	}
	return out
}

// depsOf are bundle i's dependencies, in property order; nil for none.
func (q *Querier) depsOf(i int32) []*api.Dependency {
	var out []*api.Dependency
	for _, n := range q.propNums(i) {
		if p := &q.props[n]; p.Dep >= 0 {
			d := &q.deps[p.Dep]
			out = append(out, &api.Dependency{Type: q.str(d.Type), Value: q.str(d.Value)})
		}
	}
	return out
}

// memberRec is one channel membership of bundles[bundle]; its strings are
// numbers in Querier.strs. Its skips start at Querier.skips[skipLo] and
// end where the next member's start: skips are laid out in members order.
type memberRec struct {
	Bundle                                    int32
	Channel, Replaces, SkipRange, Deprecation int32
	SkipLo                                    int32
}

// skipsOf is member mi's skips, as numbers in strs.
func (q *Querier) skipsOf(mi int32) []int32 {
	hi := int32(len(q.skips))
	if int(mi)+1 < len(q.members) {
		hi = q.members[mi+1].SkipLo
	}
	return q.skips[q.members[mi].SkipLo:hi:hi]
}

// skipNames is member mi's skips.
func (q *Querier) skipNames(mi int32) []string {
	skips := q.skipsOf(mi)
	if len(skips) == 0 {
		return nil
	}
	out := make([]string, 0, len(skips))
	for _, s := range skips {
		out = append(out, q.str(s))
	}
	return out
}

// propRec is a distinct property: its type and value, as numbers in
// Querier.strs, and what a bundle's other fields take from it: the API
// it provides or requires (role, apis[api]) and its dependency
// (deps[dep]); api and dep are -1 when it has none. value is ownValue
// for the olm.package property that says exactly the bundle's own
// package and version (ownPackageValue): every bundle has one, and the
// index need not hold its text.
type propRec struct {
	Type, Value int32
	API, Dep    int32
	Role        apiRole
}

// ownValue is propRec.value of a bundle's own olm.package property.
const ownValue = -1

// apiRec is a distinct API of a package: its group, version and kind, as
// numbers in Querier.strs.
type apiRec struct{ Group, Version, Kind int32 }

// gvk is API n.
func (q *Querier) gvk(n int32) manifest.GVK {
	a := &q.apis[n]
	return manifest.GVK{Group: q.str(a.Group), Version: q.str(a.Version), Kind: q.str(a.Kind)}
}

// depRec is a distinct dependency of a package: its type and value, as
// numbers in Querier.strs.
type depRec struct{ Type, Value int32 }

// apiRole says whether a property's API is provided or required.
type apiRole uint8

const (
	noAPI apiRole = iota
	providedAPI
	requiredAPI
)

// replacerName is the name replacer r replaces or skips: r < len(members)
// is member r's replaces edge, any other r member's skip
// skips[r-len(members)].
func (q *Querier) replacerName(r int32) int32 {
	if n := int32(len(q.members)); r >= n {
		return q.skips[r-n]
	}
	return q.members[r].Replaces
}

// replacerMember is the member whose edge replacer r is.
func (q *Querier) replacerMember(r int32) int32 {
	n := int32(len(q.members))
	if r < n {
		return r
	}
	// The skips are laid out in members order: the owner of skip k is the
	// last member whose skips start at or before k.
	k := r - n
	return int32(sort.Search(len(q.members), func(i int) bool { return q.members[i].SkipLo > k })) - 1
}

// edge is one entry of a provider answer: member's replaces edge when
// skip is -1, else its skips[skip] edge.
type edge struct{ member, skip int32 }

// manifestSource reads the csvJson and object of bundle i.
type manifestSource interface {
	manifests(q *Querier, i int32) (csv string, objs []string, err error)
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
	// CacheWritten is true when Load wrote a fresh cache (opm's and the
	// snapshot).
	CacheWritten bool
	// CacheError is why the cache could not be used or written, if it
	// could not ("" otherwise). Cache problems never fail Load.
	CacheError string
}

// Stats reports how q was built.
func (q *Querier) Stats() Stats { return q.stats }

// New prepares a Querier from a validated model, holding the model's
// manifests in memory (Load keeps them in the files instead).
func New(m *model.Model) (*Querier, error) {
	mem := &memSource{}
	ib := newIndexBuilder()
	for _, name := range sortedNames(m.Packages) {
		p, bs, err := convertPackage(m.Packages[name], true)
		if err != nil {
			return nil, err
		}
		if err := ib.addPackage(p, bs, func(i int32, b *api.Bundle) error {
			mem.add(i, b.CsvJson, b.Object)
			return nil
		}); err != nil {
			return nil, err
		}
	}
	return ib.finish(mem)
}

// memSource serves manifests held in memory, by bundle index.
type memSource struct{ held []heldManifests }

type heldManifests struct {
	csv  string
	objs []string
}

func (s *memSource) add(i int32, csv string, objs []string) {
	for int(i) >= len(s.held) {
		s.held = append(s.held, heldManifests{})
	}
	s.held[i] = heldManifests{csv, objs}
}

func (s *memSource) manifests(_ *Querier, i int32) (string, []string, error) {
	if int(i) >= len(s.held) {
		return "", nil, nil
	}
	return s.held[i].csv, s.held[i].objs, nil
}

// Close releases what the Querier reads manifests from (nothing is held
// open between calls today; Close is kept for the registry.Querier users
// that defer it).
func (q *Querier) Close() error { return nil }

// packageList returns the prepared package messages in name order.
func (q *Querier) packageList() []*api.Package {
	out := make([]*api.Package, 0, len(q.names))
	for _, n := range q.names {
		out = append(out, q.packages[n].pkg)
	}
	return out
}
