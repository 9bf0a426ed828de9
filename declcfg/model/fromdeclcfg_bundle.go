package model

import (
	"strings"

	"github.com/blang/semver/v4"
	"github.com/distribution/reference"

	"github.com/operator-catalog/olmcat/declcfg"
)

// checkBundleBlob applies the rules that need the olm.bundle blob itself:
// properties match their schema, the olm.package property names the
// bundle's package and a semver version, image references parse. It
// returns the parsed version (zero if it does not parse).
func checkBundleBlob(ps *problems, b *declcfg.Bundle) semver.Version {
	var version semver.Version
	add := func(format string, args ...any) {
		ps.add(b.Origin, declcfg.SchemaBundle, b.Package, b.Name, format, args...)
	}
	for i, p := range b.Properties {
		if p.Type == "" {
			add("property #%d: type must be set", i)
			continue
		}
		if err := p.Validate(); err != nil {
			add("property #%d (%s): %v", i, p.Type, err)
			continue
		}
		if p.Type != declcfg.PropertyPackage {
			continue
		}
		v, _ := declcfg.ParsePackageValue(p.Value) // checked by Property.Validate
		if v.PackageName != b.Package {
			add("olm.package property packageName %q does not match the bundle's package %q", v.PackageName, b.Package)
		}
		ver, err := semver.Parse(v.Version)
		if err != nil {
			add("invalid version %q in olm.package property: %v", v.Version, err)
			continue
		}
		version = ver
		if v.Release != "" {
			checkRelease(add, b, v, ver)
		}
	}
	imageOK := false
	if b.Image != "" {
		if _, err := reference.ParseNormalizedNamed(b.Image); err != nil {
			add("invalid image %q: %v", b.Image, err)
		} else {
			imageOK = true
		}
	}
	for _, ri := range b.RelatedImages {
		if ri.Image == "" || imageOK && ri.Image == b.Image { // the bundle image is listed too, as a rule
			continue
		}
		if _, err := reference.ParseNormalizedNamed(ri.Image); err != nil {
			add("invalid related image %q (name %q): %v", ri.Image, ri.Name, err)
		}
	}
	return version
}

// checkRelease applies the rules of the optional olm.package release: at
// most 20 characters of dot-separated pre-release identifiers, no build
// metadata in the version, and a bundle name of <package>-v<version>-<release>.
func checkRelease(add func(string, ...any), b *declcfg.Bundle, v declcfg.PackageValue, ver semver.Version) {
	if len(v.Release) > maxReleaseLen {
		add("invalid release %q in olm.package property: longer than %d characters", v.Release, maxReleaseLen)
	} else {
		for _, id := range strings.Split(v.Release, ".") {
			if _, err := semver.NewPRVersion(id); err != nil {
				add("invalid release %q in olm.package property: %v", v.Release, err)
				break
			}
		}
	}
	if len(ver.Build) > 0 {
		add("version %q has build metadata and a release %q: only one of them is allowed", v.Version, v.Release)
	}
	if want := b.Package + "-v" + v.Version + "-" + v.Release; b.Name != want {
		add("bundle name must be %q for a bundle with release %q", want, v.Release)
	}
}

// releaseOf returns the release of a bundle's olm.package property (the
// lenient lookup: the bundle may break the one-olm.package rule, which
// checkBundleRules reports).
func releaseOf(props []declcfg.Property) string {
	v, _ := declcfg.FirstPackageOf(props)
	return v.Release
}

// checkBundleRules applies the per-bundle rules that Model.Validate also
// applies: exactly one olm.package property, image or objects present.
func checkBundleRules(ps *problems, o declcfg.Origin, pkg, name, image string, props []declcfg.Property, objects int) {
	n := 0
	for _, p := range props {
		if p.Type == declcfg.PropertyPackage {
			n++
		}
	}
	if n != 1 {
		ps.add(o, declcfg.SchemaBundle, pkg, name, "must have exactly one olm.package property, found %d", n)
	}
	if image == "" && objects == 0 {
		ps.add(o, declcfg.SchemaBundle, pkg, name, "bundle image must be set (or bundle objects present)")
	}
}
