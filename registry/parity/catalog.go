package parity

import (
	"sort"
	"sync"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/registry/api"

	"github.com/operator-catalog/olmcat/input"

	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/internal/strarena"
)

// Names used by the not-found probes; no real catalog has them.
const (
	probePackage = "parity-probe-no-such-package"
	probeChannel = "parity-probe-no-such-channel"
	probeBundle  = "parity-probe-no-such-bundle.v0.0.0"
)

var probeGVK = manifest.GVK{Group: "parity.probe.invalid", Version: "v0", Kind: "NoSuchKind"}

// bkey identifies a bundle in a channel.
type bkey struct{ pkg, channel, name string }

func (k bkey) String() string { return k.pkg + "/" + k.channel + "/" + k.name }

// ckey identifies a channel.
type ckey struct{ pkg, channel string }

// pn identifies a bundle in a package, whatever the channel.
type pn struct{ pkg, name string }

// sideIndex is what one side serves of one package, from its ListBundles
// answer; the classification rules consult it.
type sideIndex struct {
	bundles    map[bkey]*api.Bundle
	present    map[pn]bool
	deprecated map[pn]bool
	// replacers maps a channel and a name to the bundles of that channel
	// that replace or skip the name.
	replacers map[ckey]map[string]map[string]bool
}

// catalog is what the classification knows of both sides: the packages
// (GetPackage answers, small, kept for the whole check), the provided
// APIs of each default channel head, and per package the ListBundles
// index, loaded on demand so that only a few packages are in memory.
type catalog struct {
	canon *canonCache
	kinds [2]input.Kind // backends: input.KindSQLite or input.KindDeclcfg
	// remote marks live servers (grpc://): only their answers can carry
	// fields this client does not know.
	remote [2]bool
	index  [2]indexSource

	mu       *sync.RWMutex   // guards packages and headAPIs, shared by every view
	strs     *strarena.Arena // the strings packages and headAPIs keep
	packages [2]map[string]*packageHeads
	// headAPIs holds the GVKs provided by a default channel head.
	headAPIs [2]map[manifest.GVK]bool
}

// indexSource returns one side's index of a package (empty if the side
// serves no bundle of it).
type indexSource interface {
	index(pkg string) *sideIndex
}

func newCatalog(kinds [2]input.Kind, index [2]indexSource) *catalog {
	c := &catalog{canon: &canonCache{}, kinds: kinds, index: index, mu: &sync.RWMutex{}, strs: &strarena.Arena{}}
	for s := range 2 {
		c.packages[s] = map[string]*packageHeads{}
		c.headAPIs[s] = map[manifest.GVK]bool{}
	}
	return c
}

// withCanon returns a view of c with its own canonical JSON cache: each
// package's calls repeat its bundles, so a cache per package keeps the
// memory of the check bounded.
func (c *catalog) withCanon(cc *canonCache) *catalog {
	return &catalog{canon: cc, kinds: c.kinds, remote: c.remote, index: c.index, mu: c.mu, strs: c.strs, packages: c.packages, headAPIs: c.headAPIs}
}

func newSideIndex() *sideIndex {
	return &sideIndex{
		bundles:    map[bkey]*api.Bundle{},
		present:    map[pn]bool{},
		deprecated: map[pn]bool{},
		replacers:  map[ckey]map[string]map[string]bool{},
	}
}

func (s *sideIndex) addBundle(b *api.Bundle) {
	k := bkey{b.GetPackageName(), b.GetChannelName(), b.GetCsvName()}
	s.bundles[k] = b
	s.present[pn{k.pkg, k.name}] = true
	for _, p := range b.GetProperties() {
		if p.GetType() == declcfg.PropertyDeprecated {
			s.deprecated[pn{k.pkg, k.name}] = true
		}
	}
	ck := ckey{k.pkg, k.channel}
	for _, name := range append([]string{b.GetReplaces()}, b.GetSkips()...) {
		if name == "" {
			continue
		}
		m := s.replacers[ck]
		if m == nil {
			m = map[string]map[string]bool{}
			s.replacers[ck] = m
		}
		if m[name] == nil {
			m[name] = map[string]bool{}
		}
		m[name][k.name] = true
	}
}

// setPackage records side s's GetPackage answer for name, and the APIs
// its default channel head provides (from idx, the side's index of name).
func (c *catalog) setPackage(s int, name string, p *api.Package, idx *sideIndex) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.packages[s][name] = headsOf(p, c.strs)
	def := p.GetDefaultChannelName()
	if head := idx.bundles[bkey{p.GetName(), def, headOf(p, def)}]; head != nil {
		for _, a := range head.GetProvidedApis() {
			g := manifest.GVK{Group: a.GetGroup(), Version: a.GetVersion(), Kind: a.GetKind()}
			if !c.headAPIs[s][g] {
				c.headAPIs[s][cloneGVK(c.strs, g)] = true
			}
		}
	}
}

// packageHeads is what the check keeps of a GetPackage answer for the
// rest of the check: the names the classification looks up, not the
// message (one per package and side, so it adds up over a catalog).
type packageHeads struct {
	name, defaultChannel string
	channels             []channelHead
}

// channelHead is a channel of a GetPackage answer and its head.
type channelHead struct{ name, head string }

func headsOf(p *api.Package, strs *strarena.Arena) *packageHeads {
	h := &packageHeads{name: strs.Clone(p.GetName()), defaultChannel: strs.Clone(p.GetDefaultChannelName())}
	for _, ch := range p.GetChannels() {
		h.channels = append(h.channels, channelHead{strs.Clone(ch.GetName()), strs.Clone(ch.GetCsvName())})
	}
	return h
}

// cloneGVK copies g's strings into strs.
func cloneGVK(strs *strarena.Arena, g manifest.GVK) manifest.GVK {
	return manifest.GVK{Group: strs.Clone(g.Group), Version: strs.Clone(g.Version), Kind: strs.Clone(g.Kind)}
}

// channelList returns the package's channels, none for a nil package.
func (h *packageHeads) channelList() []channelHead {
	if h == nil {
		return nil
	}
	return h.channels
}

// pkg returns what side s's GetPackage answered for name, nil if none.
func (c *catalog) pkg(s int, name string) *packageHeads {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.packages[s][name]
}

// canBeSQLite and canBeFBC tell which backend a side is (kinds holds
// backends: a live server's is given by the caller).
func (c *catalog) canBeSQLite(s int) bool { return c.kinds[s] == input.KindSQLite }
func (c *catalog) canBeFBC(s int) bool    { return c.kinds[s] == input.KindDeclcfg }

// asym reports whether side s may be the sqlite server and the other side
// the declarative config server: only then do the backend-asymmetry rules
// apply with s in the sqlite role. Two sides of the same known kind must
// answer identically.
func (c *catalog) asym(s int) bool { return c.canBeSQLite(s) && c.canBeFBC(1-s) }

// droppedDeprecated reports whether side s served the bundle with an
// olm.deprecated property and the other side, in the declarative config
// role, does not serve it in any channel.
func (c *catalog) droppedDeprecated(s int, pkg, name string) bool {
	if !c.asym(s) {
		return false
	}
	k := pn{pkg, name}
	return c.index[s].index(pkg).deprecated[k] && !c.index[1-s].index(pkg).present[k]
}

// replacers returns the bundles of a channel on side s that replace or
// skip name.
func (c *catalog) replacers(s int, ck ckey, name string) map[string]bool {
	return c.index[s].index(ck.pkg).replacers[ck][name]
}

// isHead reports whether name heads the channel on any side.
func (c *catalog) isHead(pkg, channel, name string) bool {
	for s := range 2 {
		for _, ch := range c.pkg(s, pkg).channelList() {
			if ch.name == channel && ch.head == name {
				return true
			}
		}
	}
	return false
}

// defaultProvider reports whether side s serves the bundle in a default channel
// of its package and providing g.
func (c *catalog) defaultProvider(s int, b *api.Bundle, g manifest.GVK) bool {
	p := c.pkg(s, b.GetPackageName())
	if p == nil {
		return false
	}
	lb := c.index[s].index(b.GetPackageName()).bundles[bkey{b.GetPackageName(), p.defaultChannel, b.GetCsvName()}]
	if lb == nil {
		return false
	}
	for _, a := range lb.GetProvidedApis() {
		if (manifest.GVK{Group: a.GetGroup(), Version: a.GetVersion(), Kind: a.GetKind()}) == g {
			return true
		}
	}
	return false
}

// headProvides reports whether a default channel head of side s provides g.
func (c *catalog) headProvides(s int, g manifest.GVK) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.headAPIs[s][g]
}

// headOf returns the head of channel in p ("" if p has no such channel).
func headOf(p *api.Package, channel string) string {
	for _, ch := range p.GetChannels() {
		if ch.GetName() == channel {
			return ch.GetCsvName()
		}
	}
	return ""
}

// gvksOf returns the provided and required GVKs of b.
func gvksOf(b *api.Bundle) []manifest.GVK {
	var out []manifest.GVK
	for _, list := range [][]*api.GroupVersionKind{b.GetProvidedApis(), b.GetRequiredApis()} {
		for _, a := range list {
			out = append(out, manifest.GVK{Group: a.GetGroup(), Version: a.GetVersion(), Kind: a.GetKind()})
		}
	}
	return out
}

// sortedKeys returns the keys of m sorted by less.
func sortedKeys[K comparable](m map[K]bool, less func(a, b K) bool) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return less(out[i], out[j]) })
	return out
}

// sortedOnly returns the keys of m that other lacks, sorted by less: the
// one-sided members a set comparison reports, in the order sortedKeys
// gives them, without sorting the members both sides share (almost all
// of them, in a catalog and its migration).
func sortedOnly[K comparable](m, other map[K]bool, less func(a, b K) bool) []K {
	var out []K
	for k := range m {
		if !other[k] {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return less(out[i], out[j]) })
	return out
}
