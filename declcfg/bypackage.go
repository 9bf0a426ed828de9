package declcfg

import (
	"iter"
	"slices"
)

// packageGroup is one package's blobs in a config, as indexes into the
// config's slices in the config's order.
type packageGroup struct {
	name                                              string
	packages, channels, bundles, others, deprecations []int
}

// byPackage yields the blobs of cfg grouped by package, in opm's write
// order: packages by name, blobs of no package ("") last. It is the one
// place that groups a config by package: the writers, SplitByPackage and
// the per-package streaming all go through it.
func byPackage(cfg *DeclarativeConfig) iter.Seq[*packageGroup] {
	return func(yield func(*packageGroup) bool) {
		groups := map[string]*packageGroup{}
		group := func(name string) *packageGroup {
			g := groups[name]
			if g == nil {
				g = &packageGroup{name: name}
				groups[name] = g
			}
			return g
		}
		for i := range cfg.Packages {
			g := group(cfg.Packages[i].Name)
			g.packages = append(g.packages, i)
		}
		for i := range cfg.Channels {
			g := group(cfg.Channels[i].Package)
			g.channels = append(g.channels, i)
		}
		for i := range cfg.Bundles {
			g := group(cfg.Bundles[i].Package)
			g.bundles = append(g.bundles, i)
		}
		for i := range cfg.Others {
			g := group(cfg.Others[i].Package)
			g.others = append(g.others, i)
		}
		for i := range cfg.Deprecations {
			g := group(cfg.Deprecations[i].Package)
			g.deprecations = append(g.deprecations, i)
		}
		names := make([]string, 0, len(groups))
		for n := range groups {
			if n != "" {
				names = append(names, n)
			}
		}
		slices.Sort(names)
		if _, ok := groups[""]; ok {
			names = append(names, "")
		}
		for _, n := range names {
			if !yield(groups[n]) {
				return
			}
		}
	}
}

// packageNames lists the packages of cfg's blobs in byPackage's order,
// "" standing for blobs without a package.
func packageNames(cfg *DeclarativeConfig) []string {
	var names []string
	for g := range byPackage(cfg) {
		names = append(names, g.name)
	}
	return names
}

// config copies the group's blobs out of cfg into a config of their own,
// in cfg's order; kinds without blobs stay nil.
func (g *packageGroup) config(cfg *DeclarativeConfig) *DeclarativeConfig {
	return &DeclarativeConfig{
		Packages:     pick(cfg.Packages, g.packages),
		Channels:     pick(cfg.Channels, g.channels),
		Bundles:      pick(cfg.Bundles, g.bundles),
		Deprecations: pick(cfg.Deprecations, g.deprecations),
		Others:       pick(cfg.Others, g.others),
	}
}

// pick returns src's elements at idx, or nil when idx is empty.
func pick[T any](src []T, idx []int) []T {
	if len(idx) == 0 {
		return nil
	}
	out := make([]T, len(idx))
	for j, i := range idx {
		out[j] = src[i]
	}
	return out
}

// SplitByPackage groups the blobs of cfg by package, keeping their order.
// Blobs without a package are under "".
func SplitByPackage(cfg *DeclarativeConfig) map[string]*DeclarativeConfig {
	out := map[string]*DeclarativeConfig{}
	for g := range byPackage(cfg) {
		out[g.name] = g.config(cfg)
	}
	return out
}

// PackageName is the package of a one-package catalog (the blobs of one
// package, as SplitByPackage and EachPackage give them): its olm.package
// blob's name, else its first channel's or bundle's package, else "".
func PackageName(cfg *DeclarativeConfig) string {
	switch {
	case len(cfg.Packages) > 0:
		return cfg.Packages[0].Name
	case len(cfg.Channels) > 0:
		return cfg.Channels[0].Package
	case len(cfg.Bundles) > 0:
		return cfg.Bundles[0].Package
	}
	return ""
}
