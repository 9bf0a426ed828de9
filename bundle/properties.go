package bundle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/manifest"
)

// bundleProperties builds the properties of a bundle read from files, in
// opm's order: sorted by type, then by value JSON, with the bundle
// objects (or the CSV metadata) last.
func bundleProperties(csv *manifest.CSV, objects [][]byte, meta Metadata, csvMetadata bool) ([]declcfg.Property, error) {
	version, err := csv.Version()
	if err != nil {
		return nil, err
	}
	props := []declcfg.Property{declcfg.MustProperty(declcfg.PropertyPackage, declcfg.PackageValue{PackageName: meta.Package(), Version: version})}
	// The CSV's definitions and the CRD manifests, decoded once for the
	// provided APIs, the owned CRDs check and the required APIs.
	crds, err := csv.CRDs()
	if err != nil {
		return nil, err
	}
	svcs, err := csv.APIServices()
	if err != nil {
		return nil, err
	}
	objAPIs := manifest.ObjectAPIsOf(objects)
	if err := checkOwnedCRDs(crds, objAPIs.APIs); err != nil {
		return nil, err
	}
	for _, a := range manifest.ProvidedAPIsOf(objAPIs, crds, svcs) {
		props = append(props, declcfg.MustProperty(declcfg.PropertyGVK, declcfg.GVKValue{Group: a.Group, Kind: a.Kind, Version: a.Version}))
	}
	for _, a := range manifest.RequiredAPIsOf(crds, svcs) {
		props = append(props, declcfg.MustProperty(declcfg.PropertyGVKRequired, declcfg.GVKValue{Group: a.Group, Kind: a.Kind, Version: a.Version}))
	}
	deps, err := dependencyProperties(meta.Dependencies)
	if err != nil {
		return nil, err
	}
	props = append(props, deps...)
	extra := append([]declcfg.Property(nil), meta.Properties...)
	if ann := csv.Annotation("olm.properties"); ann != "" {
		var fromCSV []declcfg.Property
		if err := json.Unmarshal([]byte(ann), &fromCSV); err != nil {
			return nil, fmt.Errorf("CSV annotation olm.properties: %w", err)
		}
		extra = append(extra, fromCSV...)
	}
	for _, p := range extra {
		v, err := declcfg.CanonicalValue(p.Value)
		if err != nil {
			return nil, fmt.Errorf("property %s: %w", p.Type, err)
		}
		props = append(props, declcfg.Property{Type: p.Type, Value: v})
	}
	props = sortDedupProperties(props)
	if csvMetadata {
		m, err := csv.Metadata()
		if err != nil {
			return nil, fmt.Errorf("CSV metadata: %w", err)
		}
		p, err := declcfg.NewProperty(declcfg.PropertyCSVMetadata, m)
		if err != nil {
			return nil, err
		}
		return append(props, p), nil
	}
	var objs []declcfg.Property
	for _, o := range objects {
		objs = append(objs, declcfg.MustProperty(declcfg.PropertyBundleObject, declcfg.BundleObjectValue{Data: o}))
	}
	return append(props, sortDedupProperties(objs)...), nil
}

// dependencyProperties turns dependencies-file entries into properties:
// olm.gvk -> olm.gvk.required, olm.package -> olm.package.required
// (version becomes versionRange), anything else verbatim.
func dependencyProperties(deps []declcfg.Property) ([]declcfg.Property, error) {
	var out []declcfg.Property
	for _, d := range deps {
		switch d.Type {
		case declcfg.PropertyGVK:
			var g declcfg.GVKValue
			if err := d.ParseValue(&g); err != nil {
				return nil, fmt.Errorf("dependency: %w", err)
			}
			out = append(out, declcfg.MustProperty(declcfg.PropertyGVKRequired, g))
		case declcfg.PropertyPackage:
			var p struct {
				PackageName string `json:"packageName"`
				Version     string `json:"version"`
			}
			if err := d.ParseValue(&p); err != nil {
				return nil, fmt.Errorf("dependency: %w", err)
			}
			out = append(out, declcfg.MustProperty(declcfg.PropertyPackageRequired, declcfg.PackageRequiredValue{PackageName: p.PackageName, VersionRange: p.Version}))
		default:
			v, err := declcfg.CanonicalValue(d.Value)
			if err != nil {
				return nil, fmt.Errorf("dependency %s: %w", d.Type, err)
			}
			out = append(out, declcfg.Property{Type: d.Type, Value: v})
		}
	}
	return out, nil
}

// checkOwnedCRDs fails when the CSV owns a CRD that no CRD manifest
// defines, objAPIs being what they serve (opm: "error checking provided
// apis in bundle").
func checkOwnedCRDs(defs manifest.CRDDefinitions, objAPIs []manifest.API) error {
	have := map[manifest.GVK]bool{}
	for _, a := range objAPIs {
		have[a.GVK] = true
	}
	for _, d := range defs.Owned {
		if g := d.API().GVK; !have[g] {
			return fmt.Errorf("error checking provided apis: the CSV owns %s (%s) but no CustomResourceDefinition manifest defines it", g, d.Name)
		}
	}
	return nil
}

// sortDedupProperties sorts by type, then value JSON, and drops exact
// duplicates.
func sortDedupProperties(props []declcfg.Property) []declcfg.Property {
	sort.SliceStable(props, func(i, j int) bool {
		if props[i].Type != props[j].Type {
			return props[i].Type < props[j].Type
		}
		return bytes.Compare(props[i].Value, props[j].Value) < 0
	})
	out := props[:0]
	for i, p := range props {
		if i > 0 && p.Type == props[i-1].Type && bytes.Equal(p.Value, props[i-1].Value) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// bundleRelatedImages lists the CSV's related images (with their names),
// the bundle image and the deployment containers' images, one entry per
// image (the first name wins), sorted by image.
func bundleRelatedImages(csv *manifest.CSV, bundleImage string) ([]declcfg.RelatedImage, error) {
	rel, err := csv.RelatedImages()
	if err != nil {
		return nil, err
	}
	var out []declcfg.RelatedImage
	seen := map[string]bool{}
	add := func(name, img string) {
		if img != "" && !seen[img] {
			seen[img] = true
			out = append(out, declcfg.RelatedImage{Name: name, Image: img})
		}
	}
	for _, r := range rel {
		add(r.Name, r.Image)
	}
	add("", bundleImage)
	cts, err := csv.Containers()
	if err != nil {
		return nil, err
	}
	for _, c := range cts {
		add("", c.Image)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Image < out[j].Image })
	return out, nil
}
