package parity

import (
	"sort"

	"github.com/operator-catalog/olmcat/registry/api"

	"github.com/operator-catalog/olmcat/registry/source"

	"github.com/operator-catalog/olmcat/internal/manifest"
)

// Property and dependency types the classification looks at.
const (
	typeGVK             = "olm.gvk"
	typePackage         = "olm.package"
	typeGVKRequired     = "olm.gvk.required"
	typePackageRequired = "olm.package.required"
	typeLabel           = "olm.label"
	typeLabelRequired   = "olm.label.required"
	typeConstraint      = "olm.constraint"
	typeDeprecated      = "olm.deprecated"
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

// sideIndex is what one side serves, from its ListBundles and GetPackage
// answers; the classification rules consult it.
type sideIndex struct {
	packages   map[string]*api.Package
	bundles    map[bkey]*api.Bundle
	present    map[pn]bool
	deprecated map[pn]bool
	// replacers maps a channel and a name to the bundles of that channel
	// that replace or skip the name.
	replacers map[ckey]map[string]map[string]bool
}

// catalog is the union of both sides, and each side's index.
type catalog struct {
	canon canonCache
	kinds [2]source.Kind // backends: source.KindSQLite or source.KindDeclcfg
	sides [2]*sideIndex
}

func newSideIndex() *sideIndex {
	return &sideIndex{
		packages:   map[string]*api.Package{},
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
		if p.GetType() == typeDeprecated {
			s.deprecated[pn{k.pkg, k.name}] = true
		}
	}
}

// canBeSQLite and canBeFBC tell which backend a side is (kinds holds
// backends: a live server's is given by the caller).
func (c *catalog) canBeSQLite(s int) bool { return c.kinds[s] == source.KindSQLite }
func (c *catalog) canBeFBC(s int) bool    { return c.kinds[s] == source.KindDeclcfg }

// asym reports whether side s may be the sqlite server and the other side
// the declarative config server: only then do the backend-asymmetry rules
// apply with s in the sqlite role. Two sides of the same known kind must
// answer identically.
func (c *catalog) asym(s int) bool { return c.canBeSQLite(s) && c.canBeFBC(1-s) }

// droppedDeprecated reports whether side s served the bundle with an
// olm.deprecated property and the other side, in the declarative config
// role, does not serve it in any channel.
func (c *catalog) droppedDeprecated(s int, pkg, name string) bool {
	k := pn{pkg, name}
	return c.asym(s) && c.sides[s].deprecated[k] && !c.sides[1-s].present[k]
}

// isHead reports whether name heads the channel on any side.
func (c *catalog) isHead(pkg, channel, name string) bool {
	for _, s := range c.sides {
		if p := s.packages[pkg]; p != nil {
			for _, ch := range p.GetChannels() {
				if ch.GetName() == channel && ch.GetCsvName() == name {
					return true
				}
			}
		}
	}
	return false
}

// defaultProvider reports whether side s serves the bundle in a default channel
// of its package and providing g.
func (c *catalog) defaultProvider(s int, b *api.Bundle, g manifest.GVK) bool {
	p := c.sides[s].packages[b.GetPackageName()]
	if p == nil {
		return false
	}
	lb := c.sides[s].bundles[bkey{b.GetPackageName(), p.GetDefaultChannelName(), b.GetCsvName()}]
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

// build indexes the upgrade edges of both sides' ListBundles answers.
func (c *catalog) build() {
	for _, s := range c.sides {
		for k, b := range s.bundles {
			ck := ckey{k.pkg, k.channel}
			add := func(name string) {
				if name == "" {
					return
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
			add(b.GetReplaces())
			for _, sk := range b.GetSkips() {
				add(sk)
			}
		}
	}
}

// calls enumerates every call after the first phase (ListPackages,
// ListBundles, GetPackage), in a stable order.
func (c *catalog) calls() []call {
	var out []call
	channels := map[ckey]bool{}
	bundles := map[bkey]bool{}
	names := map[string]bool{}
	// names per channel for GetBundleThatReplaces: bundles, replaces, skips.
	inChannel := map[ckey]map[string]bool{}
	gvks := map[manifest.GVK]bool{}
	note := func(ck ckey, name string) {
		if name == "" {
			return
		}
		names[name] = true
		if inChannel[ck] == nil {
			inChannel[ck] = map[string]bool{}
		}
		inChannel[ck][name] = true
	}
	for _, s := range c.sides {
		for _, p := range s.packages {
			for _, ch := range p.GetChannels() {
				channels[ckey{p.GetName(), ch.GetName()}] = true
			}
		}
		for k, b := range s.bundles {
			ck := ckey{k.pkg, k.channel}
			channels[ck] = true
			bundles[k] = true
			note(ck, k.name)
			note(ck, b.GetReplaces())
			for _, sk := range b.GetSkips() {
				note(ck, sk)
			}
			for _, a := range append(append([]*api.GroupVersionKind{}, b.GetProvidedApis()...), b.GetRequiredApis()...) {
				gvks[manifest.GVK{Group: a.GetGroup(), Version: a.GetVersion(), Kind: a.GetKind()}] = true
			}
		}
	}

	for _, k := range sortedKeys(bundles, bkeyLess) {
		out = append(out, call{rpc: RPCGetBundle, pkg: k.pkg, channel: k.channel, name: k.name})
	}
	chs := sortedKeys(channels, func(a, b ckey) bool {
		return a.pkg < b.pkg || a.pkg == b.pkg && a.channel < b.channel
	})
	for _, ck := range chs {
		out = append(out, call{rpc: RPCGetBundleForChannel, pkg: ck.pkg, channel: ck.channel})
	}
	for _, n := range sortedKeys(names, func(a, b string) bool { return a < b }) {
		out = append(out, call{rpc: RPCGetChannelEntriesThatReplace, name: n})
	}
	for _, ck := range chs {
		for _, n := range sortedKeys(inChannel[ck], func(a, b string) bool { return a < b }) {
			out = append(out, call{rpc: RPCGetBundleThatReplaces, pkg: ck.pkg, channel: ck.channel, name: n})
		}
	}
	for _, g := range sortedKeys(gvks, func(a, b manifest.GVK) bool { return a.String() < b.String() }) {
		for _, rpc := range []string{RPCGetChannelEntriesThatProvide, RPCGetLatestChannelEntriesThatProvide, RPCGetDefaultBundleThatProvides} {
			out = append(out, call{rpc: rpc, gvk: g})
		}
	}

	return append(out, probes(chs)...)
}

// probes are the not-found calls, whose error versus answer must agree:
// unknown package, channel and bundle, also inside the first of chs.
func probes(chs []ckey) []call {
	var out []call
	out = append(out,
		call{rpc: RPCGetBundle, pkg: probePackage, channel: probeChannel, name: probeBundle, probe: true},
		call{rpc: RPCGetBundleForChannel, pkg: probePackage, channel: probeChannel, probe: true},
		call{rpc: RPCGetChannelEntriesThatReplace, name: probeBundle, probe: true},
		call{rpc: RPCGetBundleThatReplaces, pkg: probePackage, channel: probeChannel, name: probeBundle, probe: true},
	)
	if len(chs) > 0 {
		ck := chs[0]
		out = append(out,
			call{rpc: RPCGetBundle, pkg: ck.pkg, channel: probeChannel, name: probeBundle, probe: true},
			call{rpc: RPCGetBundle, pkg: ck.pkg, channel: ck.channel, name: probeBundle, probe: true},
			call{rpc: RPCGetBundleForChannel, pkg: ck.pkg, channel: probeChannel, probe: true},
			call{rpc: RPCGetBundleThatReplaces, pkg: ck.pkg, channel: probeChannel, name: probeBundle, probe: true},
			call{rpc: RPCGetBundleThatReplaces, pkg: ck.pkg, channel: ck.channel, name: probeBundle, probe: true},
		)
	}
	for _, rpc := range []string{RPCGetChannelEntriesThatProvide, RPCGetLatestChannelEntriesThatProvide, RPCGetDefaultBundleThatProvides} {
		out = append(out, call{rpc: rpc, gvk: probeGVK, probe: true})
	}
	return out
}

func sortedKeys[K comparable](m map[K]bool, less func(a, b K) bool) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return less(out[i], out[j]) })
	return out
}
