package model

import (
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/blang/semver/v4"

	"github.com/operator-catalog/olmcat/declcfg"
)

// Validate checks the model's graph rules: every package has channels and
// a default channel among them and no two bundles with the same version;
// every channel has bundles, exactly one head, no cycle in its replaces
// chain and no stranded bundle; every bundle has a name, exactly one
// olm.package property, an image or objects, no empty skips and a
// parseable skipRange. All problems are returned as a *ValidationError
// whose Problems is the flat report and which unwraps to one *Error
// per package with problems (package -> channel -> bundle).
func (m *Model) Validate() error {
	return validationError(m.validate(true))
}

// validate runs the model rules, one *Error per package with
// problems, in package name order. full adds the rules FromDeclcfg
// already checks on the blobs (bundle rules, default channel presence), so
// that a model built from another source is checked completely.
func (m *Model) validate(full bool) []error {
	var errs []error
	for _, pname := range sortedKeys(m.Packages) {
		if err := m.Packages[pname].validate(pname, full); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// validationError is the *ValidationError of nested model errors: the flat
// report derived from them, and the errors themselves to unwrap to.
func validationError(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return &ValidationError{Problems: flattenErrors(errs), nested: errs}
}

// Validate checks the package, its channels and their bundles (see
// Model.Validate). It returns nil or a *Error.
func (mp *Package) Validate() error { return mp.validate(mp.Name, true) }

// validate checks the package known as pname in its model.
func (mp *Package) validate(pname string, full bool) error {
	var ps problems
	if mp.Name == "" {
		ps.add(mp.Origin, declcfg.SchemaPackage, "", "", "package name must be set")
	}
	if len(mp.Channels) == 0 {
		ps.add(mp.Origin, declcfg.SchemaPackage, pname, "", "package must have at least one channel")
	}
	if full {
		switch {
		case mp.DefaultChannel == nil:
			ps.add(mp.Origin, declcfg.SchemaPackage, pname, "", "default channel must be set")
		case mp.Channels[mp.DefaultChannel.Name] != mp.DefaultChannel:
			ps.add(mp.Origin, declcfg.SchemaPackage, pname, "", "default channel %q not found in the package's channels", mp.DefaultChannel.Name)
		}
	}
	errs := ps.errs()

	// Each bundle's rules are checked once, under the first channel (by
	// name) that holds it.
	unique := map[string]*Bundle{}
	claim := func(bname string, b *Bundle) bool {
		if _, seen := unique[bname]; seen {
			return false
		}
		unique[bname] = b
		return true
	}
	for _, cname := range sortedKeys(mp.Channels) {
		if err := mp.Channels[cname].validate(mp, pname, cname, full, claim); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, duplicateVersions(mp, pname, unique).errs()...)
	return modelError(declcfg.SchemaPackage, pname, "", errs)
}

// duplicateVersions reports bundles of a package that share a version (and
// release).
func duplicateVersions(mp *Package, pname string, unique map[string]*Bundle) problems {
	byVersion := map[string][]string{}
	for _, bname := range sortedKeys(unique) {
		b := unique[bname]
		if b.Version.Equals(semver.Version{}) && !hasZeroVersion(b) {
			continue // unparsed version: reported elsewhere
		}
		v := b.Version.String()
		if r := releaseOf(b.Properties); r != "" {
			v += " release " + r
		}
		byVersion[v] = append(byVersion[v], bname)
	}
	var ps problems
	for _, v := range sortedKeys(byVersion) {
		if names := byVersion[v]; len(names) > 1 {
			ps.add(mp.Origin, declcfg.SchemaPackage, pname, "", "duplicate versions found in bundles: %s: %s", v, strings.Join(names, ", "))
		}
	}
	return ps
}

// hasZeroVersion says whether a bundle's olm.package property really is
// version 0.0.0 (rather than missing or unparseable). Any of them: the
// bundle's version is the last that parses (checkBundleBlob), and one
// with several olm.package properties is reported on its own.
func hasZeroVersion(b *Bundle) bool {
	for v, err := range declcfg.PackageValues(b.Properties) {
		if err != nil {
			continue
		}
		if ver, err := semver.Parse(v.Version); err == nil && ver.Equals(semver.Version{}) {
			return true
		}
	}
	return false
}

// Validate checks the channel's graph and edges and every bundle in it
// (see Model.Validate). It returns nil or a *Error.
func (mc *Channel) Validate() error {
	pname := ""
	if mc.Package != nil {
		pname = mc.Package.Name
	}
	return mc.validate(mc.Package, pname, mc.Name, true, func(string, *Bundle) bool { return true })
}

// validate checks the channel known as cname in package pname (mp). claim
// is called for every bundle of the channel (the package collects them
// for its own rules) and says whether the bundle's rules are checked here;
// they are checked only when full.
func (mc *Channel) validate(mp *Package, pname, cname string, full bool, claim func(string, *Bundle) bool) error {
	var ps problems
	add := func(format string, args ...any) {
		ps.add(mc.Origin, declcfg.SchemaChannel, pname, cname, format, args...)
	}
	if mc.Package != mp {
		add("channel is not linked to its package")
	}
	if cname == "" {
		add("channel name must be set")
	}
	if len(mc.Bundles) == 0 {
		add("channel must contain at least one bundle")
		return modelError(declcfg.SchemaChannel, pname, cname, ps.errs())
	}
	for _, n := range sortedKeys(mc.Bundles) {
		if b := mc.Bundles[n]; b.Channel != nil && b.Channel != mc {
			add("bundle %q is not linked to its channel", n)
		}
	}
	for _, f := range AnalyzeChannel(mc.graphEntries()).Findings {
		if !f.Warning {
			add("%s", f.Message)
		}
	}
	errs := ps.errs()
	for _, bname := range sortedKeys(mc.Bundles) {
		b := mc.Bundles[bname]
		if !claim(bname, b) || !full {
			continue
		}
		if err := b.validate(pname, bname); err != nil {
			errs = append(errs, err)
		}
	}
	return modelError(declcfg.SchemaChannel, pname, cname, errs)
}

// Validate checks the bundle's own rules: a name, exactly one olm.package
// property, an image or objects. It returns nil or a *Error.
func (b *Bundle) Validate() error {
	pname := ""
	if b.Package != nil {
		pname = b.Package.Name
	}
	return b.validate(pname, b.Name)
}

// validate checks the bundle known as bname in package pname.
func (b *Bundle) validate(pname, bname string) error {
	var ps problems
	if b.Name == "" {
		ps.add(b.Origin, declcfg.SchemaBundle, pname, "", "bundle name must be set")
	}
	checkBundleRules(&ps, b.Origin, pname, bname, b.Image, b.Properties, len(b.Objects))
	return modelError(declcfg.SchemaBundle, pname, bname, ps.errs())
}

// parallelFor calls fn(i) for every i in [0, n) on GOMAXPROCS goroutines.
func parallelFor(n int, fn func(i int)) {
	workers := runtime.GOMAXPROCS(0)
	if workers > n {
		workers = n
	}
	if workers <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// sortedKeys are m's keys in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
