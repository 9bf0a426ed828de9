package declcfg

import (
	"context"
	"io"
	"maps"
	"slices"

	"github.com/operator-catalog/olmcat/internal/testutil/catalogtest"
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

// writeDirStream writes what EachPackage hands over as the CLI streams a
// directory: the same bytes as WriteStream of LoadDir(root).
func writeDirStream(ctx context.Context, w io.Writer, root string, f Format, opts ...LoadOption) error {
	return EachPackage(ctx, root, func(_ string, part *DeclarativeConfig) error {
		return WriteStream(w, part, f)
	}, opts...)
}
