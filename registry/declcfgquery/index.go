package declcfgquery

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/registry/api"
)

// indexBuilder collects a catalog's records package by package and then
// indexes them into a Querier. Strings go to the Querier's string table,
// which holds a package's repeated strings once (a name that appears as
// a bundle, a replaces edge and a skip).
type indexBuilder struct {
	q    *Querier
	pkgs []*api.Package
	// byName numbers the distinct bundles of the package being added, and
	// propIdx its distinct properties: a package's bundles all come in
	// the one addPackage call, so neither holds more than one package.
	byName  map[[2]string]int32
	propIdx map[[2]string]int32
	// runs finds the property runs (propRun) stored for the package's
	// bundles by their numbers' bytes; run and runKey are scratch.
	runs   map[string]int32
	run    []int32
	runKey []byte
	// apiIdx and depIdx number the package's distinct APIs and
	// dependencies in the Querier's tables.
	apiIdx map[manifest.GVK]int32
	depIdx map[[2]string]int32
}

func newIndexBuilder() *indexBuilder {
	return &indexBuilder{q: &Querier{strs: newStrTable()}, byName: map[[2]string]int32{},
		propIdx: map[[2]string]int32{}, runs: map[string]int32{}, apiIdx: map[manifest.GVK]int32{}, depIdx: map[[2]string]int32{}}
}

// strNum is s's number in the Querier's string table.
func (ib *indexBuilder) strNum(s string) int32 { return ib.q.strs.add(s) }

// member appends a membership of bundle i with the strings and skips
// given.
func (ib *indexBuilder) member(i int32, channel, replaces, skipRange, deprecation string, skips []string) {
	q := ib.q
	m := memberRec{Bundle: i, Channel: ib.strNum(channel), Replaces: ib.strNum(replaces),
		SkipRange: ib.strNum(skipRange), Deprecation: ib.strNum(deprecation), SkipLo: int32(len(q.skips))}
	for _, s := range skips {
		q.skips = append(q.skips, ib.strNum(s))
	}
	q.members = append(q.members, m)
}

// addPackage adds a package and its bundle messages (one per channel
// membership, as convertPackage prepares them). keep, when not nil, is
// called with the index and first message of every new distinct bundle.
func (ib *indexBuilder) addPackage(p *api.Package, bundles []*api.Bundle, keep func(i int32, b *api.Bundle) error) error {
	ib.pkgs = append(ib.pkgs, p)
	clear(ib.byName)
	clear(ib.propIdx)
	clear(ib.runs)
	clear(ib.apiIdx)
	clear(ib.depIdx)
	q := ib.q
	q.strs.reset()
	for _, b := range bundles {
		k := [2]string{b.PackageName, b.CsvName}
		i, ok := ib.byName[k]
		if !ok {
			i = int32(len(q.bundles))
			rec, err := ib.record(b)
			if err != nil {
				return err
			}
			q.bundles = append(q.bundles, rec)
			ib.byName[k] = i
			if keep != nil {
				if err := keep(i, b); err != nil {
					return err
				}
			}
		}
		ib.member(i, b.ChannelName, b.Replaces, b.SkipRange, b.GetDeprecation().GetMessage(), b.Skips)
	}
	return nil
}

// record is the index record of b's channel-independent fields.
func (ib *indexBuilder) record(b *api.Bundle) (bundleRec, error) {
	rec := bundleRec{Pkg: ib.strNum(b.PackageName), Name: ib.strNum(b.CsvName), Version: ib.strNum(b.Version),
		BundleRepo: ib.strNum(imageRepo(b.BundlePath)), BundleRef: ib.strNum(b.BundlePath[len(imageRepo(b.BundlePath)):])}
	ib.run = ib.run[:0]
	provided, required, deps := b.ProvidedApis, b.RequiredApis, b.Dependencies
	ok := true
	for _, p := range b.Properties {
		pr := propRec{API: -1, Dep: -1}
		switch p.Type {
		case declcfg.PropertyGVK:
			pr.Role, ok = providedAPI, ok && len(provided) > 0
			if ok {
				pr.API, provided = ib.api(provided[0]), provided[1:]
			}
		case declcfg.PropertyGVKRequired:
			pr.Role, ok = requiredAPI, ok && len(required) > 0
			if ok {
				pr.API, required = ib.api(required[0]), required[1:]
			}
		}
		if p.Type == declcfg.PropertyGVKRequired || p.Type == declcfg.PropertyPackageRequired {
			if ok = ok && len(deps) > 0; ok {
				pr.Dep, deps = ib.dep(deps[0]), deps[1:]
			}
		}
		if p.Type == declcfg.PropertyPackage && p.Value == ownPackageValue(b.PackageName, b.Version) {
			pr.Value = ownValue
		}
		ib.run = append(ib.run, ib.prop(p, pr))
	}
	rec.PropLo, rec.PropHi = ib.propRun()
	if !ok || len(provided)+len(required)+len(deps) != 0 {
		return rec, fmt.Errorf("bundle %q: its APIs and dependencies are not those of its properties", b.CsvName)
	}
	return rec, nil
}

// propRun stores the property numbers in ib.run in the Querier's nums,
// or finds the same run stored for an earlier bundle of the package: a
// package's bundles mostly list the same properties (their own
// olm.package value is one property, ownValue), so they share one run.
func (ib *indexBuilder) propRun() (lo, hi int32) {
	ib.runKey = ib.runKey[:0]
	for _, n := range ib.run {
		ib.runKey = binary.LittleEndian.AppendUint32(ib.runKey, uint32(n))
	}
	lo, ok := ib.runs[string(ib.runKey)]
	if !ok {
		lo = int32(len(ib.q.nums))
		ib.q.nums = append(ib.q.nums, ib.run...)
		ib.runs[string(ib.runKey)] = lo
	}
	return lo, lo + int32(len(ib.run))
}

// prop numbers p, which carries what pr says, in the Querier's property
// table (once per package).
func (ib *indexBuilder) prop(p *api.Property, pr propRec) int32 {
	k := [2]string{p.Type, p.Value}
	if pr.Value == ownValue {
		k[1] = "" // no value normalizes to "": the key of every bundle's own package value
	}
	n, ok := ib.propIdx[k]
	if !ok {
		n = int32(len(ib.q.props))
		pr.Type = ib.strNum(p.Type)
		if pr.Value != ownValue {
			pr.Value = ib.strNum(p.Value)
		}
		ib.q.props = append(ib.q.props, pr)
		ib.propIdx[k] = n
	}
	return n
}

// dep numbers d in the Querier's dependency table (once per package).
func (ib *indexBuilder) dep(d *api.Dependency) int32 {
	k := [2]string{d.Type, d.Value}
	n, ok := ib.depIdx[k]
	if !ok {
		n = int32(len(ib.q.deps))
		ib.q.deps = append(ib.q.deps, depRec{ib.strNum(d.Type), ib.strNum(d.Value)})
		ib.depIdx[k] = n
	}
	return n
}

// api numbers g in the Querier's API table (once per package).
func (ib *indexBuilder) api(g *api.GroupVersionKind) int32 {
	k := manifest.GVK{Group: g.Group, Version: g.Version, Kind: g.Kind}
	n, ok := ib.apiIdx[k]
	if !ok {
		n = int32(len(ib.q.apis))
		ib.q.apis = append(ib.q.apis, apiRec{ib.strNum(g.Group), ib.strNum(g.Version), ib.strNum(g.Kind)})
		ib.apiIdx[k] = n
	}
	return n
}

// finish indexes the records and checks that they are consistent: every
// membership's package and channel exist, no bundle is listed twice in a
// channel, and every channel's head is one of its bundles.
func (ib *indexBuilder) finish(src manifestSource) (*Querier, error) {
	q := ib.q
	q.src = src
	if err := q.strs.freeze(); err != nil {
		return nil, err
	}
	q.packages = make(map[string]*pkgIndex, len(ib.pkgs))
	for _, p := range ib.pkgs {
		if _, dup := q.packages[p.Name]; dup {
			return nil, fmt.Errorf("package %q listed twice", p.Name)
		}
		slices.SortFunc(p.Channels, func(a, b *api.Channel) int { return cmp.Compare(a.Name, b.Name) })
		pi := &pkgIndex{pkg: p, channels: make(map[string]*chanIndex, len(p.Channels))}
		for _, c := range p.Channels {
			pi.channels[c.Name] = &chanIndex{lo: -1, head: -1}
		}
		q.packages[p.Name] = pi
		q.names = append(q.names, p.Name)
		q.stats.Channels += len(p.Channels)
	}
	sort.Strings(q.names)
	q.sortMembers()
	if err := q.rangeMembers(); err != nil {
		return nil, err
	}
	for _, p := range ib.pkgs {
		for _, c := range p.Channels {
			ci := q.packages[p.Name].channels[c.Name]
			h, ok := int32(0), false
			if ci.lo >= 0 { // a channel without members has no range
				h, ok = q.member(ci, c.CsvName)
			}
			if !ok {
				return nil, fmt.Errorf("package %q, channel %q: head %q is not a bundle of the channel", p.Name, c.Name, c.CsvName)
			}
			ci.head = h
		}
	}
	q.index()
	// The records and provider lists were appended one by one: keep them
	// at their size, not at the capacity the last growth left.
	q.bundles, q.nums, q.props = slices.Clone(q.bundles), slices.Clone(q.nums), slices.Clone(q.props)
	q.stats.Packages = len(ib.pkgs)
	q.stats.Bundles = len(q.bundles)
	q.stats.ChannelEntries = len(q.members)
	return q, nil
}

// sortMembers sorts the members by (channel, package, bundle) and lays
// their skips out in that order (each member's skips end where the next
// one's start, as they did in the order the members were added), both at
// their size.
func (q *Querier) sortMembers() {
	perm := make([]int32, len(q.members))
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortFunc(perm, func(i, j int32) int {
		a, b := &q.members[i], &q.members[j]
		ra, rb := &q.bundles[a.Bundle], &q.bundles[b.Bundle]
		return cmp.Or(cmp.Compare(q.str(a.Channel), q.str(b.Channel)), cmp.Compare(q.str(ra.Pkg), q.str(rb.Pkg)), cmp.Compare(q.str(ra.Name), q.str(rb.Name)))
	})
	members := make([]memberRec, len(perm))
	skips := make([]int32, 0, len(q.skips))
	for k, i := range perm {
		m := q.members[i]
		lo, hi := m.SkipLo, int32(len(q.skips))
		if int(i)+1 < len(q.members) {
			hi = q.members[i+1].SkipLo
		}
		m.SkipLo = int32(len(skips))
		skips = append(skips, q.skips[lo:hi]...)
		members[k] = m
	}
	q.members, q.skips = members, skips
}

// rangeMembers sets every channel's range of members (members sorted),
// checking that each membership's package and channel exist and that no
// bundle is listed twice in a channel.
func (q *Querier) rangeMembers() error {
	for i := range q.members {
		m := &q.members[i]
		b := &q.bundles[m.Bundle]
		pkg, name, channel := q.str(b.Pkg), q.str(b.Name), q.str(m.Channel)
		pi, ok := q.packages[pkg]
		if !ok {
			return fmt.Errorf("bundle %q: package %q not found", name, pkg)
		}
		ci, ok := pi.channels[channel]
		if !ok {
			return fmt.Errorf("bundle %q: package %q, channel %q not found", name, pkg, channel)
		}
		switch {
		case ci.lo < 0:
			ci.lo = int32(i)
		case q.str(q.bundles[q.members[i-1].Bundle].Name) == name:
			return fmt.Errorf("package %q, channel %q: bundle %q listed twice", pkg, channel, name)
		}
		ci.hi = int32(i) + 1
	}
	return nil
}

// index precomputes the answers of the RPCs that would otherwise scan
// every membership per call, in exactly the order those scans produced
// them (members order; latest by package, channel).
func (q *Querier) index() {
	q.indexReplacers()
	q.indexProviders()
	q.latest = map[manifest.GVK][]edge{}
	for _, n := range q.names {
		pi := q.packages[n]
		for _, c := range pi.pkg.Channels {
			ci := pi.channels[c.Name]
			h := &q.members[ci.head]
			for _, k := range q.providedGVKs(h.Bundle) {
				q.latest[k] = append(q.latest[k], edge{ci.head, -1})
				for j, s := range q.skipsOf(ci.head) {
					if _, in := q.member(ci, q.str(s)); in && s != h.Replaces {
						q.latest[k] = append(q.latest[k], edge{ci.head, int32(j)})
					}
				}
			}
		}
	}
	for k, edges := range q.latest {
		q.latest[k] = slices.Clip(edges)
	}
}

// indexReplacers pairs every member with its replaces and each other
// skip, sorted by name then member. The pairs are counted first: the
// list is the largest of the index, and is made at its size.
func (q *Querier) indexReplacers() {
	n := len(q.members)
	for i := range q.members {
		for _, s := range q.skipsOf(int32(i)) {
			if s != q.members[i].Replaces {
				n++
			}
		}
	}
	q.replacers = make([]int32, 0, n)
	for i := range q.members {
		q.replacers = append(q.replacers, int32(i))
		for _, k := range q.edgeSkips(int32(i)) {
			q.replacers = append(q.replacers, int32(len(q.members))+k)
		}
	}
	n32 := int32(len(q.members))
	slices.SortFunc(q.replacers, func(a, b int32) int {
		if c := cmp.Compare(q.str(q.replacerName(a)), q.str(q.replacerName(b))); c != 0 {
			return c
		}
		if (a < n32) == (b < n32) {
			// Both members' replaces edges, or both skips: skips are laid
			// out in members order, so either compares as its member.
			return cmp.Compare(a, b)
		}
		return cmp.Compare(q.replacerMember(a), q.replacerMember(b))
	})
}

// indexProviders lists the members providing each GVK, in members order,
// each list made at its size (counted first).
func (q *Querier) indexProviders() {
	counts := map[manifest.GVK]int{}
	for i := range q.members {
		for _, k := range q.providedGVKs(q.members[i].Bundle) {
			counts[k]++
		}
	}
	q.providers = make(map[manifest.GVK][]int32, len(counts))
	for k, n := range counts {
		q.providers[k] = make([]int32, 0, n)
	}
	for i := range q.members {
		for _, k := range q.providedGVKs(q.members[i].Bundle) {
			q.providers[k] = append(q.providers[k], int32(i))
		}
	}
}

// edgeSkips are the positions in skips of member mi's skips other than
// its replaces (each is an edge of its own).
func (q *Querier) edgeSkips(mi int32) []int32 {
	var out []int32
	lo := q.members[mi].SkipLo
	for j, s := range q.skipsOf(mi) {
		if s != q.members[mi].Replaces {
			out = append(out, lo+int32(j))
		}
	}
	return out
}

// appendEdges appends member mi's edges: its replaces edge, then one per
// skip other than its replaces.
func (q *Querier) appendEdges(edges []edge, mi int32) []edge {
	edges = append(edges, edge{mi, -1})
	lo := q.members[mi].SkipLo
	for _, k := range q.edgeSkips(mi) {
		edges = append(edges, edge{mi, k - lo})
	}
	return edges
}

// replacersOf are the members that replace or skip name, in members
// order.
func (q *Querier) replacersOf(name string) []int32 {
	lo, _ := slices.BinarySearchFunc(q.replacers, name, func(r int32, name string) int {
		return cmp.Compare(q.str(q.replacerName(r)), name)
	})
	hi := lo
	for hi < len(q.replacers) && q.str(q.replacerName(q.replacers[hi])) == name {
		hi++
	}
	out := make([]int32, hi-lo)
	for k, r := range q.replacers[lo:hi] {
		out[k] = q.replacerMember(r)
	}
	return out
}

// providedGVKs are bundle i's provided APIs, each once, in first-seen
// order.
func (q *Querier) providedGVKs(i int32) []manifest.GVK {
	var out []manifest.GVK
	for _, n := range q.propNums(i) {
		p := &q.props[n]
		if p.Role != providedAPI {
			continue
		}
		if k := q.gvk(p.API); !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}
