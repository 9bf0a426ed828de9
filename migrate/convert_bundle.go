package migrate

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/blang/semver/v4"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/jsonscan"
	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/legacy"
)

// bundleState is a bundle row being converted.
type bundleState struct {
	row     *legacy.Bundle
	csvJSON []byte     // the CSV among the bundle objects, nil if none
	images  *csvImages // related images and container names from csvJSON
	// csvMeta is the olm.csv.metadata value of csvJSON, decoded only when
	// the migrate level writes it.
	csvMeta *manifest.CSVMetadata
	// invalid holds the bundle-level problems found; with
	// WithDropInvalidBundles they turn into one drop.
	invalid []Finding
}

// checkBundle finds what would make the bundle unservable and records it
// in st.invalid. It also locates and parses the bundle's CSV.
func (c *converter) checkBundle(st *bundleState) {
	b := st.row
	bad := func(kind Kind, field, value, detail string) {
		st.invalid = append(st.invalid, Finding{Kind: kind, Package: c.pkg, Bundle: b.Name, Field: field, Value: value, Detail: detail, Hint: Hint(kind)})
	}
	c.checkManifests(st, bad)
	if st.csvJSON != nil {
		if err := c.readCSV(st); err != nil {
			bad(ProblemInvalidCSV, "csv", "", fmt.Sprintf("operatorbundle row %q: the ClusterServiceVersion does not parse: %v", b.Name, err))
		}
	}
	checkFields(b, bad)
}

// badFunc records one bundle-level problem: its kind, the field, the
// offending value and what is wrong with it.
type badFunc func(kind Kind, field, value, detail string)

// checkManifests checks the csv column and every manifest of the bundle
// column and sets st.csvJSON to the bundle's first CSV object.
func (c *converter) checkManifests(st *bundleState, bad badFunc) {
	b := st.row
	csvReported := false
	for _, u := range b.Unreadable {
		kind := ProblemInvalidCSV
		if u.Column == "bundle" {
			kind = ProblemInvalidManifest
		}
		csvReported = csvReported || u.Column == "csv"
		bad(kind, u.Column, "", fmt.Sprintf("operatorbundle row %q, %s column: does not decode: %v", b.Name, u.Column, u.Err))
	}
	// The csv column usually holds the bundle column's CSV object byte for
	// byte, give or take whitespace around it (a stored column may end in
	// a newline; the split objects carry none): then one check serves both.
	csvAt, csvValid := -1, false
	var csvKind string
	var csvKindErr error
	if b.CSV != nil && !csvReported {
		csv := jsonscan.TrimSpace(b.CSV)
		csvAt = slices.IndexFunc(b.Objects, func(obj []byte) bool { return bytes.Equal(obj, csv) })
		if csvKind, csvValid, csvKindErr = manifest.ValidKind(csv); !csvValid {
			bad(ProblemInvalidCSV, "csv", "", fmt.Sprintf("operatorbundle row %q, csv column: not valid JSON", b.Name))
		}
	}
	for i, obj := range b.Objects {
		// Manifests are written as they are stored; each must be valid
		// JSON for a client to apply it.
		kind, valid, err := csvKind, csvValid, csvKindErr
		if i != csvAt {
			kind, valid, err = manifest.ValidKind(obj)
		}
		if !valid {
			bad(ProblemInvalidManifest, fmt.Sprintf("objects[%d]", i), "", fmt.Sprintf("operatorbundle row %q, bundle column: manifest %d is not valid JSON", b.Name, i))
			continue
		}
		if err != nil {
			bad(ProblemInvalidManifest, fmt.Sprintf("objects[%d]", i), "", fmt.Sprintf("operatorbundle row %q, bundle column: manifest %d has no readable kind: %v", b.Name, i, err))
			continue
		}
		if kind == manifest.KindCSV && st.csvJSON == nil {
			st.csvJSON = obj
		}
	}
	if st.csvJSON == nil && len(b.Objects) > 0 {
		if b.BundlePath == "" {
			bad(ProblemInvalidManifest, "objects", "", fmt.Sprintf("operatorbundle row %q: the manifests hold no ClusterServiceVersion and the bundle has no image to install from", b.Name))
		} else {
			c.note(Finding{Kind: NoteNoCSV, Bundle: b.Name, Field: "objects",
				Detail: "the manifests hold no ClusterServiceVersion (opm refused the whole index); written as stored, clients install from the bundle image"})
		}
	}
}

// checkFields checks the bundle's version, skipRange, image, properties
// and dependencies.
func checkFields(b *legacy.Bundle, bad badFunc) {
	if _, err := semver.Parse(b.Version); err != nil {
		bad(ProblemInvalidVersion, "version", b.Version, fmt.Sprintf("version is not semver: %v", err))
	}
	if b.SkipRange != "" {
		if _, err := semver.ParseRange(b.SkipRange); err != nil {
			bad(ProblemInvalidSkipRange, "skipRange", b.SkipRange, fmt.Sprintf("skipRange is not a semver range: %v", err))
		}
	}
	if b.BundlePath != "" {
		if err := validateImageRef(b.BundlePath); err != nil {
			bad(ProblemInvalidImage, "image", b.BundlePath, fmt.Sprintf("bundle image is not a valid image reference: %v", err))
		}
	} else if len(b.Objects) == 0 {
		bad(ProblemMissingImage, "image", "", "the bundle has neither an image nor manifests")
	}
	for i, p := range b.Properties {
		if err := checkValue(p.Type, p.Value); err != nil {
			bad(ProblemInvalidProperty, fmt.Sprintf("properties[%d]", i), p.Value, fmt.Sprintf("%s property: %v", p.Type, err))
		}
	}
	for i, d := range b.Dependencies {
		if err := checkValue(d.Type, d.Value); err != nil {
			bad(ProblemInvalidProperty, fmt.Sprintf("dependencies[%d]", i), d.Value, fmt.Sprintf("%s dependency: %v", d.Type, err))
		}
	}
}

// checkValue checks that a property or dependency value is JSON and, for
// the types the conversion reads, has the expected shape.
func checkValue(typ, value string) error {
	var err error
	switch typ {
	case declcfg.PropertyGVK:
		_, err = declcfg.ParseGVKValue([]byte(value))
	case declcfg.PropertyPackage:
		_, err = declcfg.ParsePackageValue([]byte(value))
	case declcfg.PropertyLabel:
		_, err = declcfg.ParseLabelValue([]byte(value))
	default:
		if !json.Valid([]byte(value)) {
			err = fmt.Errorf("not valid JSON")
		}
	}
	return err
}

// convertBundle builds the olm.bundle blob of a kept bundle.
func (c *converter) convertBundle(st *bundleState) declcfg.Bundle {
	b := st.row
	out := declcfg.Bundle{Schema: declcfg.SchemaBundle, Name: b.Name, Package: c.pkg, Image: b.BundlePath}
	props := c.bundleProperties(st)

	// Bundle manifests: olm.bundle.object per object, or one
	// olm.csv.metadata for bundles with an image and a CSV.
	var tail []declcfg.Property
	hasCSVMeta := false
	for _, p := range props {
		if p.Type == declcfg.PropertyCSVMetadata {
			hasCSVMeta = true
		}
	}
	if c.o.csvMetadata() && b.BundlePath != "" && st.csvMeta != nil && !hasCSVMeta {
		v, err := encodeCompact(st.csvMeta)
		if err == nil {
			props = append(props, declcfg.Property{Type: declcfg.PropertyCSVMetadata, Value: v})
		}
	} else {
		for _, obj := range b.Objects {
			props = append(props, c.bundleObject(obj))
		}
	}
	props = dedupSort(props)
	n := 0
	for _, p := range props {
		if p.Type == declcfg.PropertyBundleObject || p.Type == declcfg.PropertyCSVMetadata {
			if p.Type == declcfg.PropertyBundleObject {
				c.res.counts.Objects++
			}
			tail = append(tail, p)
			continue
		}
		props[n] = p
		n++
	}
	out.Properties = append(props[:n], tail...)
	out.RelatedImages = c.relatedImages(st)
	return out
}

// bundleObject is the olm.bundle.object property of one manifest:
// {"data": base64 of the manifest bytes as stored}.
func bundleObject(obj []byte) declcfg.Property {
	return declcfg.Property{Type: declcfg.PropertyBundleObject, Value: appendBundleObject(nil, obj)}
}

func appendBundleObject(v, obj []byte) []byte {
	v = append(v, `{"data":"`...)
	v = base64.StdEncoding.AppendEncode(v, obj)
	return append(v, `"}`...)
}

// bundleObjectLen is the length of appendBundleObject's output for obj.
func bundleObjectLen(obj []byte) int {
	return base64.StdEncoding.EncodedLen(len(obj)) + len(`{"data":""}`)
}

// bundleObject builds the property in the package's arena when there is
// one: the base64 manifests are most of a migration's allocations, and
// the arena is recycled once the package is written.
func (c *converter) bundleObject(obj []byte) declcfg.Property {
	n := bundleObjectLen(obj)
	if c.arena == nil || cap(*c.arena)-len(*c.arena) < n {
		return bundleObject(obj)
	}
	start := len(*c.arena)
	*c.arena = appendBundleObject(*c.arena, obj)
	end := len(*c.arena)
	return declcfg.Property{Type: declcfg.PropertyBundleObject, Value: (*c.arena)[start:end:end]}
}

// arenaPool holds byte arenas of written packages for reuse.
var arenaPool sync.Pool

// getArena returns an empty arena of at least n bytes.
func getArena(n int) *[]byte {
	if a, ok := arenaPool.Get().(*[]byte); ok && cap(*a) >= n {
		*a = (*a)[:0]
		return a
	}
	a := make([]byte, 0, n+n/4)
	return &a
}

// release hands the package's arena back for reuse. Only callers that
// are done with every property value of res.cfg (written, not returned)
// may call it.
func (r *packageResult) release() {
	if r.arena != nil {
		arenaPool.Put(r.arena)
		r.arena = nil
	}
}

// bundleProperties assembles the properties opm built from the properties
// and dependencies rows, plus the dependency types opm lost.
func (c *converter) bundleProperties(st *bundleState) []declcfg.Property {
	b := st.row
	var out []declcfg.Property
	provided := map[declcfg.GVKValue]bool{}
	required := map[declcfg.GVKValue]bool{}
	foundPackage := false
	for _, p := range b.Properties {
		switch p.Type {
		case declcfg.PropertyGVK:
			if v, err := declcfg.ParseGVKValue([]byte(p.Value)); err == nil {
				provided[v] = true
			}
		default:
			if p.Type == declcfg.PropertyPackage {
				foundPackage = true
			}
			if v, err := compactValue(p.Value); err == nil {
				out = append(out, declcfg.Property{Type: p.Type, Value: v})
			}
		}
	}
	for _, d := range b.Dependencies {
		switch d.Type {
		case declcfg.PropertyGVK:
			if v, err := declcfg.ParseGVKValue([]byte(d.Value)); err == nil {
				required[v] = true
			}
		case declcfg.PropertyPackage:
			if v, err := declcfg.ParsePackageValue([]byte(d.Value)); err == nil {
				out = append(out, declcfg.MustProperty(declcfg.PropertyPackageRequired,
					declcfg.PackageRequiredValue{PackageName: v.PackageName, VersionRange: v.Version}))
			}
		case declcfg.PropertyLabel:
			if v, err := declcfg.ParseLabelValue([]byte(d.Value)); err == nil {
				out = append(out, declcfg.MustProperty(declcfg.PropertyLabelRequired, v))
			}
		case declcfg.PropertyConstraint:
			if v, err := compactValue(d.Value); err == nil {
				out = append(out, declcfg.Property{Type: declcfg.PropertyConstraint, Value: v})
			}
		default:
			c.drop(Finding{Kind: DropUnknownDependency, Bundle: b.Name, Field: "dependencies", Value: d.Type + " " + d.Value,
				Detail: fmt.Sprintf("dependency type %q has no declarative config equivalent; it is left out (opm dropped it too)", d.Type)})
		}
	}
	if !foundPackage {
		out = append(out, declcfg.MustProperty(declcfg.PropertyPackage, declcfg.PackageValue{PackageName: c.pkg, Version: b.Version}))
	}
	for _, a := range b.ProvidedAPIs {
		provided[declcfg.GVKValue{Group: a.Group, Kind: a.Kind, Version: a.Version}] = true
	}
	for _, a := range b.RequiredAPIs {
		required[declcfg.GVKValue{Group: a.Group, Kind: a.Kind, Version: a.Version}] = true
	}
	for v := range provided {
		out = append(out, declcfg.MustProperty(declcfg.PropertyGVK, v))
	}
	for v := range required {
		out = append(out, declcfg.MustProperty(declcfg.PropertyGVKRequired, v))
	}
	return out
}

// dedupSort removes identical properties and sorts by type, then value
// bytes, as opm did.
func dedupSort(props []declcfg.Property) []declcfg.Property {
	sort.SliceStable(props, func(i, j int) bool {
		if props[i].Type != props[j].Type {
			return props[i].Type < props[j].Type
		}
		return string(props[i].Value) < string(props[j].Value)
	})
	n := 0
	for i, p := range props {
		if i > 0 && p.Type == props[n-1].Type && string(p.Value) == string(props[n-1].Value) {
			continue
		}
		props[n] = p
		n++
	}
	return props[:n]
}

// relatedImages lists the CSV's spec.relatedImages, then the related_image
// rows not already listed, sorted by image. opm named the rows ""; a row
// that is a deployment container image of the CSV gets the container's
// name.
func (c *converter) relatedImages(st *bundleState) []declcfg.RelatedImage {
	var out []declcfg.RelatedImage
	seen := map[string]bool{}
	var containers map[string]string
	if st.images != nil {
		for _, ri := range st.images.related {
			out = append(out, declcfg.RelatedImage{Name: ri.Name, Image: ri.Image})
			seen[ri.Image] = true
		}
		containers = st.images.containers
	}
	for _, img := range st.row.RelatedImages {
		if seen[img] {
			continue
		}
		seen[img] = true
		out = append(out, declcfg.RelatedImage{Name: containers[img], Image: img})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Image < out[j].Image })

	kept := out[:0]
	for i, ri := range out {
		if ri.Image == "" {
			kept = append(kept, ri)
			continue
		}
		if fixed, ok := repairRepeatedDigest(ri.Image); ok {
			c.res.repairs = append(c.res.repairs, legacy.Repair{Kind: RepairRepeatedDigest, Table: "related_image",
				Package: c.pkg, Bundle: st.row.Name,
				Detail: fmt.Sprintf("related image %q carries the same digest twice; written as %q", ri.Image, fixed)})
			ri.Image = fixed
			if seen[fixed] {
				continue // the repaired reference is listed already
			}
			seen[fixed] = true
		}
		if err := validateImageRef(ri.Image); err != nil {
			f := Finding{Kind: DropInvalidRelatedImage, Bundle: st.row.Name, Field: fmt.Sprintf("relatedImages[%d].image", i), Value: ri.Image,
				Detail: fmt.Sprintf("related image is not a valid image reference: %v", err)}
			if c.o.dropInvalidRelatedImages {
				f.Detail += "; left out"
				c.drop(f)
				continue
			}
			f.Kind = ProblemInvalidRelatedImage
			c.problem(f)
		}
		kept = append(kept, ri)
	}
	if len(kept) == 0 {
		return nil
	}
	return kept
}
