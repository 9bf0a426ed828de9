package declcfg

import (
	"maps"
	"slices"

	"github.com/operator-catalog/olmcat/internal/catalogtest"
)

// The blob builders shared with the model's tests.
var (
	pkgBlob    = catalogtest.PkgBlob
	chBlob     = catalogtest.ChBlob
	entry      = catalogtest.Entry
	bundleBlob = catalogtest.BundleBlob
	pkgProp    = catalogtest.PkgProp
	bundleWith = catalogtest.BundleWith
	validFoo   = catalogtest.ValidFoo()
)

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
