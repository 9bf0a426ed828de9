package indexop

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg"
)

// ErrDefaultChannelRemoval is opm's refusal to deprecate a bundle whose
// truncation would remove the head of its package's default channel.
//
//lint:ignore ST1005 opm v1.73's message, capital letter included
var ErrDefaultChannelRemoval = errors.New("Bundle deprecation causing default channel removal")

// Deprecation is one run of opm's deprecatetruncate on a catalog, in the
// steps opm took: Survey every package, then Check the bundle images
// (missing ones), PlanRemoval (--allow-package-removal), Apply to every
// package, and Err for the deprecations refused. Bundles are named by
// image, as opm named them by bundle path.
//
// Each bundle deprecated stays in the channels it does not head with no
// replaces or skips, carries the olm.deprecated property and is listed
// in the package's olm.deprecations blob (what olmcat migrate
// --keep-deprecated makes of the database opm wrote); the bundles its
// replaces and skips chain reaches are removed from its channels, and
// from the package when no other channel or bundle holds them; the
// channels it heads are removed.
type Deprecation struct {
	images []string
	found  []string
	where  map[string]bundleRef
	pkgs   map[string]*pkgSummary
	remove map[string]bool
	errs   map[string]error
	any    bool
}

type bundleRef struct{ pkg, name string }

// pkgSummary is what the survey keeps of a package: its default
// channel's head and every channel's head, by channel name.
type pkgSummary struct {
	defaultHead string
	channels    []string
	heads       map[string]string // channel -> head bundle name
	images      map[string]string // bundle name -> image
}

// NewDeprecation starts a deprecation of the bundles whose images are
// given, in that order.
func NewDeprecation(images []string) *Deprecation {
	return &Deprecation{images: images, where: map[string]bundleRef{}, pkgs: map[string]*pkgSummary{},
		remove: map[string]bool{}, errs: map[string]error{}}
}

// Survey records one package of the catalog (every package is surveyed
// before Check).
func (d *Deprecation) Survey(pkg *declcfg.DeclarativeConfig) {
	s := &pkgSummary{heads: map[string]string{}, images: map[string]string{}}
	name := ""
	for _, b := range pkg.Bundles {
		name = b.Package
		d.any = true
		s.images[b.Name] = b.Image
		if _, ok := d.where[b.Image]; !ok {
			d.where[b.Image] = bundleRef{b.Package, b.Name}
		}
	}
	for _, ch := range pkg.Channels {
		name = ch.Package
		s.channels = append(s.channels, ch.Name)
		s.heads[ch.Name] = ChannelHead(ch)
	}
	slices.Sort(s.channels)
	for _, p := range pkg.Packages {
		name = p.Name
		s.defaultHead = s.heads[p.DefaultChannel]
	}
	if name != "" {
		d.pkgs[name] = s
	}
}

// Check finds the images no bundle of the catalog has: opm's error
// "target bundlepaths for deprecation missing from registry". The run
// goes on with the images found (opm's --permissive); a catalog without
// bundles has none missing, as in opm.
func (d *Deprecation) Check() error {
	if !d.any {
		d.found = nil
		return nil
	}
	var missing []string
	d.found = nil
	for _, img := range d.images {
		if _, ok := d.where[img]; ok {
			d.found = append(d.found, img)
		} else {
			missing = append(missing, img)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("target bundlepaths for deprecation missing from registry: %v", missing)
	}
	return nil
}

// PlanRemoval is opm's --allow-package-removal: a package whose default
// channel head is deprecated is removed whole when the heads of all its
// channels are deprecated, else nothing is removed and the error says
// which head is missing (the deprecation goes on without removals).
func (d *Deprecation) PlanRemoval() error {
	var pkgs []string
	for _, img := range d.found {
		ref := d.where[img]
		if s := d.pkgs[ref.pkg]; s != nil && s.defaultHead != "" && s.defaultHead == ref.name {
			pkgs = append(pkgs, ref.pkg)
		}
	}
	var heads []string
	for _, pkg := range pkgs {
		s := d.pkgs[pkg]
		for _, ch := range s.channels {
			img := s.images[s.heads[ch]]
			if !slices.Contains(d.found, img) {
				return fmt.Errorf("cannot deprecate default channel head from package without removing all other channel heads in package %s: must deprecate %s, head of channel %s", pkg, img, ch)
			}
			heads = append(heads, img)
		}
	}
	for _, pkg := range pkgs {
		d.remove[pkg] = true
	}
	d.found = slices.DeleteFunc(d.found, func(img string) bool { return slices.Contains(heads, img) })
	return nil
}

// Err is the deprecations refused, in the order the images were given
// (nil if none): each bundle whose truncation would reach its default
// channel's head was left as it was.
func (d *Deprecation) Err() error {
	var errs []string
	for _, img := range d.found {
		if err := d.errs[img]; err != nil {
			errs = append(errs, fmt.Sprintf("error deprecating bundle %s: %s", img, err))
		}
	}
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errors.New(errs[0])
	}
	return fmt.Errorf("[%s]", strings.Join(errs, ", "))
}

// Apply deprecates the bundles of package pkg (its blobs, not modified)
// and returns the package's new blobs (nil when PlanRemoval removes it)
// and what changed.
func (d *Deprecation) Apply(pkg *declcfg.DeclarativeConfig) (*declcfg.DeclarativeConfig, []string) {
	name := ""
	if len(pkg.Packages) > 0 {
		name = pkg.Packages[0].Name
	}
	if d.remove[name] {
		return nil, []string{fmt.Sprintf("removed package %s: the heads of all its channels are deprecated", name)}
	}
	var mine []string
	for _, img := range d.found {
		if d.where[img].pkg == name && name != "" {
			mine = append(mine, img)
		}
	}
	if len(mine) == 0 {
		return pkg, nil
	}
	t := newTruncation(pkg)
	for _, img := range mine {
		if err := t.deprecate(d.where[img].name); err != nil {
			d.errs[img] = err
		}
	}
	return t.result()
}
