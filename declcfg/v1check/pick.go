package v1check

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/operator-catalog/olmcat/declcfg"
)

// versionRelease is a bundle's version and release as operator-controller
// reads them with the standard feature set (BundleReleaseSupport off):
// the olm.package version parsed by blang/semver, its build metadata
// counting as the release when it is a valid one (operator-controller
// internal/operator-controller/bundleutil/bundle.go@v1.11.0,
// operator-registry alpha/model/versionrelease.go@v1.73.0). An explicit
// release field is not read.
type versionRelease struct {
	version semver.Version
	release []string
}

// maxReleaseLen is the longest build metadata that counts as a release.
const maxReleaseLen = 20

// bundleVersion reads b's version and release from its first olm.package
// property, or says why operator-controller cannot (it then ranks the
// bundle below every valid one).
func bundleVersion(b *declcfg.Bundle) (versionRelease, error) {
	for _, p := range b.Properties {
		if p.Type != declcfg.PropertyPackage {
			continue
		}
		v, err := declcfg.ParsePackageValue(p.Value)
		if err != nil {
			return versionRelease{}, err
		}
		sv, err := semver.Parse(v.Version)
		if err != nil {
			return versionRelease{}, fmt.Errorf("version %q: %w", v.Version, err)
		}
		vr := versionRelease{version: sv}
		if validRelease(sv.Build) {
			vr.release = sv.Build
		}
		return vr, nil
	}
	return versionRelease{}, fmt.Errorf("no package property found in bundle %q", b.Name)
}

// validRelease says whether build metadata counts as a release: at most
// maxReleaseLen characters, dot-separated, no numeric part with a leading
// zero.
func validRelease(build []string) bool {
	if len(build) == 0 || len(strings.Join(build, ".")) > maxReleaseLen {
		return false
	}
	for _, part := range build {
		if part == "" || len(part) > 1 && part[0] == '0' && isNumeric(part) {
			return false
		}
	}
	return true
}

func isNumeric(s string) bool {
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}

// compare orders a and b by version, then release (a release ranks above
// none; releases compare part by part as pre-release identifiers do).
func (a versionRelease) compare(b versionRelease) int {
	if c := a.version.Compare(b.version); c != 0 {
		return c
	}
	switch {
	case len(a.release) == 0 || len(b.release) == 0:
		return cmp.Compare(len(a.release), len(b.release))
	}
	for i := range min(len(a.release), len(b.release)) {
		if c := compareIdent(a.release[i], b.release[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a.release), len(b.release))
}

// compareIdent compares two release parts: numbers numerically and
// below words, words byte-wise.
func compareIdent(a, b string) int {
	an, aErr := strconv.ParseUint(a, 10, 64)
	bn, bErr := strconv.ParseUint(b, 10, 64)
	switch {
	case aErr == nil && bErr == nil:
		return cmp.Compare(an, bn)
	case aErr == nil:
		return -1
	case bErr == nil:
		return 1
	}
	return strings.Compare(a, b)
}

// String is the version with its release as build metadata.
func (a versionRelease) String() string {
	v := a.version
	v.Build = a.release
	return v.String()
}

// candidate is a bundle as operator-controller ranks it.
type candidate struct {
	b          *declcfg.Bundle
	vr         versionRelease
	err        error // why it has no version
	deprecated bool
}

// rank orders candidates best first, as operator-controller sorts a
// package's bundles (compare.go): not deprecated first, then by version
// and release, highest first, bundles without a valid version last. The
// sort is stable on the bundles' name order, the order of the files
// operator-controller's cache loads them from.
func rank(cs []candidate) {
	slices.SortStableFunc(cs, func(a, b candidate) int {
		if a.deprecated != b.deprecated {
			if a.deprecated {
				return 1
			}
			return -1
		}
		if a.err != nil || b.err != nil {
			return cmp.Compare(boolInt(a.err != nil), boolInt(b.err != nil))
		}
		return b.vr.compare(a.vr)
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// candidates are the package's bundles in name order, with what ranking
// reads of each (deprecated: the bundle names the surviving
// olm.deprecations blob deprecates).
func candidates(bundles []declcfg.Bundle, deprecated map[string]bool) []candidate {
	cs := make([]candidate, 0, len(bundles))
	for i := range bundles {
		b := &bundles[i]
		vr, err := bundleVersion(b)
		cs = append(cs, candidate{b: b, vr: vr, err: err, deprecated: deprecated[b.Name]})
	}
	slices.SortStableFunc(cs, func(a, b candidate) int { return strings.Compare(a.b.Name, b.b.Name) })
	return cs
}
