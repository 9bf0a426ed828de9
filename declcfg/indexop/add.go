package indexop

import (
	"fmt"
	"slices"

	"github.com/operator-catalog/olmcat/declcfg"
)

// Add adds bundles, all of package pkgName, to pkg (the blobs of that
// package; nil or empty for a new package) and returns the package's new
// blobs with one line per change. pkg is not modified. Errors about one
// bundle are *BundleError.
func Add(pkgName string, pkg *declcfg.DeclarativeConfig, bundles []NewBundle, opts ...Option) (*declcfg.DeclarativeConfig, []string, error) {
	o := newOptions(opts)
	if pkg == nil {
		pkg = &declcfg.DeclarativeConfig{}
	}
	def := ""
	for _, p := range pkg.Packages {
		def = p.DefaultChannel
	}
	nodes, byName := existingNodes(pkg, def)
	var added []*node
	for i := range bundles {
		if got := bundles[i].Bundle.Package; got != pkgName {
			return nil, nil, fmt.Errorf("bundle %s is in package %s, not %s", bundles[i].Bundle.Name, got, pkgName)
		}
		n, err := newNode(&bundles[i], o)
		if err != nil {
			return nil, nil, err
		}
		replaced, err := sanityCheck(n, nodes, added, o)
		if err != nil {
			return nil, nil, err
		}
		if replaced != nil {
			nodes = slices.DeleteFunc(nodes, func(x *node) bool { return x == replaced })
		}
		added = append(added, n)
	}
	if o.mode == ModeReplaces && o.enableAlpha {
		// opm's semver graph ignores the edges a substitution rewrites.
		if err := substitute(append(slices.Clone(nodes), added...)); err != nil {
			return nil, nil, err
		}
	}
	g := &graph{pkg: pkgName, old: pkg, defaultChannel: def}
	var err error
	if o.mode == ModeReplaces {
		err = g.replaces(nodes, added)
	} else {
		err = g.semver(nodes, byName, added, o.mode == ModeSemverSkipPatch)
	}
	if err != nil {
		return nil, nil, err
	}
	return g.result(added)
}

// sanityCheck applies opm's checks of a bundle against its package: its
// image and its name must be new, unless --overwrite-latest replaces the
// bundle of that name (returned).
func sanityCheck(n *node, existing, added []*node, o options) (*node, error) {
	for _, x := range added {
		if x.name == n.name {
			return nil, bundleErr(n, "bundle %s is given twice (%s and %s)", n.name, x.blob.Image, n.blob.Image)
		}
	}
	var same *node
	for _, x := range existing {
		if n.blob.Image != "" && x.blob.Image == n.blob.Image {
			return nil, bundleErr(n, "Bundle %s already exists (bundle %s of package %s)", n.blob.Image, x.name, n.blob.Package)
		}
		if x.name == n.name {
			same = x
		}
	}
	if same == nil {
		return nil, nil
	}
	switch {
	case !o.overwriteLatest:
		return nil, bundleErr(n, "Bundle already added that provides package and csv (bundle %s of package %s)", n.name, n.blob.Package)
	case o.mode != ModeReplaces:
		return nil, bundleErr(n, "Bundle version %s already added to index (bundle %s)", n.version, n.name)
	case same.blob.Image == "":
		return nil, bundleErr(n, "index add --overwrite-latest is only supported when using bundle images (bundle %s has no image)", n.name)
	}
	for _, x := range existing {
		if (x.replaces == same.name || slices.Contains(x.skips, same.name)) && sharesChannel(x, same) {
			return nil, bundleErr(n, "Cannot overwrite a bundle that is not at the head of a channel using --overwrite-latest (%s is replaced by %s)", n.name, x.name)
		}
	}
	return same, nil
}

func sharesChannel(a, b *node) bool {
	for _, c := range a.channels {
		if slices.Contains(b.channels, c) {
			return true
		}
	}
	return false
}
