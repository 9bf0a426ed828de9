package indexop

import (
	"errors"
	"fmt"
	"slices"

	"github.com/operator-catalog/olmcat/declcfg"
)

// BundleAdd adds new bundles to their packages (Add) as opm's index add
// and registry add did, package by package as an Op: a package of the
// catalog gets its bundles when the stream reaches it, a new package
// once every existing one was seen. Each changed package is validated.
// With permissive, a bundle that fails to add is left out and told, and
// the others go on.
type BundleAdd struct {
	byPkg      map[string][]NewBundle
	order      []string // packages, first named first
	opts       []Option
	permissive bool
	notes      func(string)
	done       map[string]bool
}

// NewBundleAdd groups bundles by package for an add with opts; notes
// gets the changes made and, with permissive, the bundles left out.
func NewBundleAdd(bundles []NewBundle, permissive bool, notes func(string), opts ...Option) *BundleAdd {
	a := &BundleAdd{byPkg: map[string][]NewBundle{}, opts: opts, permissive: permissive, notes: notes, done: map[string]bool{}}
	for _, nb := range bundles {
		pkg := nb.Bundle.Package
		if _, ok := a.byPkg[pkg]; !ok {
			a.order = append(a.order, pkg)
		}
		a.byPkg[pkg] = append(a.byPkg[pkg], nb)
	}
	return a
}

// Op is the Op adding the bundles; it is meant to run once.
func (a *BundleAdd) Op() Op {
	return Op{
		Apply: func(pkg string, cfg *declcfg.DeclarativeConfig) (*declcfg.DeclarativeConfig, error) {
			if _, ok := a.byPkg[pkg]; !ok || pkg == "" {
				return cfg, nil
			}
			a.done[pkg] = true
			return a.addTo(pkg, cfg)
		},
		Extra: func() ([]*declcfg.DeclarativeConfig, error) {
			var out []*declcfg.DeclarativeConfig
			for _, pkg := range a.order {
				if a.done[pkg] {
					continue
				}
				res, err := a.addTo(pkg, nil)
				if err != nil {
					return nil, err
				}
				if res != nil {
					out = append(out, res)
				}
			}
			return out, nil
		},
	}
}

// addTo adds the bundles of pkg to cfg (nil: a new package).
func (a *BundleAdd) addTo(pkg string, cfg *declcfg.DeclarativeConfig) (*declcfg.DeclarativeConfig, error) {
	bundles := a.byPkg[pkg]
	for len(bundles) > 0 {
		res, changes, err := Add(pkg, cfg, bundles, a.opts...)
		if err == nil {
			err = validatePackage(pkg, res)
		}
		var be *BundleError
		isBad := func(nb NewBundle) bool { return be != nil && nb.Bundle.Name == be.Bundle }
		switch {
		case err == nil:
			for _, c := range changes {
				say(a.notes, c)
			}
			return res, nil
		case !a.permissive || !errors.As(err, &be) || !slices.ContainsFunc(bundles, isBad):
			// An error about a bundle already in the catalog: leaving
			// out the new ones would not mend it.
			return nil, err
		}
		say(a.notes, fmt.Sprintf("permissive: left out bundle %s (%s): %v", be.Bundle, be.Image, be.Err))
		bundles = slices.DeleteFunc(slices.Clone(bundles), isBad)
	}
	return cfg, nil
}
