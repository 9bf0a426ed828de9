// Package catalogtest is the module's one source of test catalogs: the
// synthetic catalog generator (Generate: any number of packages, channels
// and bundles, as declarative config, a directory in opm's layout or
// bundles for the legacy index builder internal/testutil/dbbuild), which the
// benchmarks, scripts/gen-bench-db.sh and the load tests share, and
// builders of single declarative config blobs that the tests of declcfg
// and declcfg/model start from (each returns one JSON line).
package catalogtest

import (
	"fmt"
	"strings"
)

// PkgBlob renders an olm.package blob.
func PkgBlob(name, def string) string {
	return fmt.Sprintf(`{"schema":"olm.package","name":%q,"defaultChannel":%q}`, name, def)
}

// ChBlob renders an olm.channel blob with the given entries (see Entry).
func ChBlob(pkg, name string, entries ...string) string {
	return fmt.Sprintf(`{"schema":"olm.channel","package":%q,"name":%q,"entries":[%s]}`, pkg, name, strings.Join(entries, ","))
}

// Entry renders a channel entry: name, then optional replaces.
func Entry(name string, replaces ...string) string {
	if len(replaces) > 0 {
		return fmt.Sprintf(`{"name":%q,"replaces":%q}`, name, replaces[0])
	}
	return fmt.Sprintf(`{"name":%q}`, name)
}

// BundleBlob renders an olm.bundle blob with an image and an olm.package
// property.
func BundleBlob(pkg, name, version string) string {
	return BundleWith(pkg, name, "example.com/test/"+pkg+"-bundle:"+version, PkgProp(pkg, version))
}

// PkgProp renders an olm.package property.
func PkgProp(pkg, version string) string {
	return fmt.Sprintf(`{"type":"olm.package","value":{"packageName":%q,"version":%q}}`, pkg, version)
}

// BundleWith renders an olm.bundle blob with the given image and
// properties.
func BundleWith(pkg, name, image string, props ...string) string {
	return fmt.Sprintf(`{"schema":"olm.bundle","package":%q,"name":%q,"image":%q,"properties":[%s]}`, pkg, name, image, strings.Join(props, ","))
}

// ValidFoo returns a valid one-package catalog (package foo, channel
// stable, two bundles) that test cases start from.
func ValidFoo() []string {
	return []string{
		PkgBlob("foo", "stable"),
		ChBlob("foo", "stable", Entry("foo.v0.1.0"), Entry("foo.v0.2.0", "foo.v0.1.0")),
		BundleBlob("foo", "foo.v0.1.0", "0.1.0"),
		BundleBlob("foo", "foo.v0.2.0", "0.2.0"),
	}
}
