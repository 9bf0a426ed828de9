package action

import (
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/operator-catalog/olmcat/bundle"
	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/unpack"
)

// BundleLoad reads a bundle ConfigMap (written by bundle extract, OLM's
// unpack Job or by hand) as the olm.bundle blob opm render gives for the
// bundle's image. A PackageManifest in it is told through the log: it
// gives the package and channels of a bundle without annotations (the
// package-manifest layout), and otherwise has no place in the blob.
type BundleLoad struct {
	Env
	ConfigMap *corev1.ConfigMap
}

// BundleLoadResult is the blob of the bundle.
type BundleLoadResult struct {
	Bundle declcfg.Bundle
}

// ErrNoBundleMetadata is the error of a ConfigMap holding a bundle's
// manifests but nothing telling its package and channels (no bundle
// annotation, no annotations.yaml entry, no PackageManifest): there is
// no olm.bundle blob without them.
var ErrNoBundleMetadata = errors.New("the ConfigMap holds manifests but no bundle metadata")

// Run decodes the ConfigMap, identifies its objects and renders the
// blob.
func (l BundleLoad) Run(_ context.Context) (BundleLoadResult, error) {
	m, err := unpack.Load(l.ConfigMap)
	if err != nil {
		return BundleLoadResult{}, fmt.Errorf("bundle load: %w", err)
	}
	ref := l.ConfigMap.Namespace + "/" + l.ConfigMap.Name
	if pm := m.PackageManifest; pm != nil {
		if fillFromPackageManifest(m) {
			l.logf("note: %s has no bundle annotations: package %s, channels %q and default channel %q taken from its PackageManifest",
				ref, pm.PackageName, m.Bundle.Annotations[annotation.Channels], pm.DefaultChannel)
		} else {
			l.logf("note: %s holds the PackageManifest of package %s (%d channels, default %q), not part of the olm.bundle blob",
				ref, pm.PackageName, len(pm.Channels), pm.DefaultChannel)
		}
	}
	if m.Bundle.Annotations[annotation.Package] == "" {
		return BundleLoadResult{}, fmt.Errorf("bundle load %s: %w", ref, ErrNoBundleMetadata)
	}
	// Rendered as opm render renders a bundle image: the image recorded
	// in the ConfigMap is the blob's image.
	fsys, err := m.Bundle.FS()
	if err == nil {
		var b declcfg.Bundle
		if b, _, err = bundle.FromFS(fsys, bundle.WithImage(m.Bundle.Image)); err == nil {
			return BundleLoadResult{Bundle: b}, nil
		}
	}
	return BundleLoadResult{}, fmt.Errorf("bundle load %s: %w", ref, err)
}

// fillFromPackageManifest gives a bundle in the package-manifest layout
// (a PackageManifest, no annotations.yaml) the annotations a bundle image
// would carry: the package, the channels whose head is this CSV (every
// channel when none is) and the default channel. It reports whether it did.
func fillFromPackageManifest(m *unpack.Manifest) bool {
	pm, b := m.PackageManifest, m.Bundle
	if pm == nil || b.Annotations[annotation.Package] != "" {
		return false
	}
	var heads, all []string
	for _, c := range pm.Channels {
		all = append(all, c.Name)
		if c.CurrentCSV == b.Name {
			heads = append(heads, c.Name)
		}
	}
	if len(heads) == 0 {
		heads = all
	}
	if b.Annotations == nil {
		b.Annotations = map[string]string{}
	}
	b.Annotations[annotation.Package] = pm.PackageName
	b.Annotations[annotation.Channels] = strings.Join(heads, ",")
	if pm.DefaultChannel != "" {
		b.Annotations[annotation.DefaultChannel] = pm.DefaultChannel
	}
	return true
}
