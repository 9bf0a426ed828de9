package indexop

import (
	"github.com/blang/semver/v4"

	"github.com/operator-catalog/olmcat/declcfg"
)

// noVersion is what opm gives a bundle without a parsable version
// (0.0.0-z), so that it sorts below every real version.
var noVersion = semver.Version{Pre: []semver.PRVersion{{VersionStr: "z"}}}

// bundleVersion is the version of the bundle's olm.package property:
// the first that is semver (a bundle with several, which opm's model
// refuses, is still placed by one that sorts), else noVersion.
func bundleVersion(b *declcfg.Bundle) semver.Version {
	for v, err := range declcfg.PackageValues(b.Properties) {
		if err != nil {
			continue
		}
		if ver, err := semver.Parse(v.Version); err == nil {
			return ver
		}
	}
	return noVersion
}

// compareVersions orders versions as opm's channel heads do: semver
// order, then build metadata compared as pre-release identifiers
// (1.0.0 < 1.0.0+1 < 1.0.0+2).
func compareVersions(a, b semver.Version) int {
	if c := a.Compare(b); c != 0 {
		return c
	}
	return buildAsPrerelease(a).Compare(buildAsPrerelease(b))
}

func buildAsPrerelease(v semver.Version) semver.Version {
	if len(v.Build) == 0 {
		return semver.Version{}
	}
	out := semver.Version{Major: 1}
	for _, b := range v.Build {
		pr, err := semver.NewPRVersion(b)
		if err != nil {
			pr = semver.PRVersion{VersionStr: b}
		}
		out.Pre = append(out.Pre, pr)
	}
	return out
}
