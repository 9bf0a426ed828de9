package declcfgquery

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/blang/semver/v4"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/model"
	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/registry/api"
)

// bundleData is the channel-independent part of a served bundle. A bundle
// that is a member of several channels shares one bundleData, so its
// manifests and properties are held once.
type bundleData struct {
	version      string
	csvJSON      string
	objects      []string
	provided     []*api.GroupVersionKind
	required     []*api.GroupVersionKind
	dependencies []*api.Dependency
	properties   []*api.Property
}

// convertBundle prepares the channel-independent fields of b as opm serve
// fills them (reference: ConvertModelBundleToAPIBundle semantics).
// Without manifests, csvJSON and objects stay empty (b may come from a
// lean load, whose objects are placeholders). memo, when not nil, keeps
// converted property values across calls: the bundles of a package repeat
// most of them (the same APIs, version after version).
func convertBundle(manifests bool, b *model.Bundle, memo propMemo) (*bundleData, error) {
	d := &bundleData{}
	var csvMeta []declcfg.Property
	for _, p := range b.Properties {
		switch p.Type {
		case declcfg.PropertyBundleObject:
			// Served as object/csvJson, never as a property: clients project
			// properties into CSV annotations, which would double CSV size.
			continue
		case declcfg.PropertyCSVMetadata:
			csvMeta = append(csvMeta, p)
			continue
		}
		c, err := memo.convert(p)
		if err != nil {
			return nil, fmt.Errorf("bundle %q: %w", b.Name, err)
		}
		d.properties = append(d.properties, c.prop)
		switch {
		case p.Type == declcfg.PropertyPackage && d.version == "":
			d.version = c.version
		case p.Type == declcfg.PropertyGVK:
			d.provided = append(d.provided, c.gvk)
		case p.Type == declcfg.PropertyGVKRequired:
			d.required = append(d.required, c.gvk)
		}
		if c.dep != nil {
			d.dependencies = append(d.dependencies, c.dep)
		}
	}
	if d.version == "" && !b.Version.Equals(semver.Version{}) {
		d.version = b.Version.String()
	}
	if manifests {
		var err error
		if d.csvJSON, d.objects, err = bundleManifests(b, csvMeta, d.version); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// bundleManifests are the csvJSON and objects convertBundle serves for b:
// its own, or a CSV synthesized from its one olm.csv.metadata property
// (csvMeta) when it has none. version is the bundle's version as
// convertBundle finds it. A server reading a blob back calls it alone,
// with the version its index keeps: the properties were converted when
// the catalog was loaded, and only the manifests are wanted again.
func bundleManifests(b *model.Bundle, csvMeta []declcfg.Property, version string) (string, []string, error) {
	csvJSON, objects := b.CsvJSON, b.Objects
	// The CSV is also one of the objects: hold its text once.
	for _, o := range objects {
		if o == csvJSON {
			csvJSON = o
			break
		}
	}
	if csvJSON == "" && len(csvMeta) == 1 {
		csv, err := syntheticCSV(b, csvMeta[0], version)
		if err != nil {
			return "", nil, fmt.Errorf("bundle %q: %w", b.Name, err)
		}
		csvJSON = csv
		if len(objects) == 0 {
			objects = []string{csv}
		}
	}
	return csvJSON, objects, nil
}

// propMemo maps a property (type and raw value) to its conversion. The
// converted messages are shared by every bundle that has the property,
// and never modified.
type propMemo map[string]*convertedProp

// convertedProp is a property as the API serves it, with what the
// bundle's other fields take from it.
type convertedProp struct {
	prop    *api.Property
	version string                // olm.package
	gvk     *api.GroupVersionKind // olm.gvk, olm.gvk.required
	dep     *api.Dependency       // olm.gvk.required, olm.package.required
}

// convert converts p, once per distinct property when m is not nil.
func (m propMemo) convert(p declcfg.Property) (*convertedProp, error) {
	var key string
	if m != nil {
		key = p.Type + "\x00" + string(p.Value)
		if c, ok := m[key]; ok {
			return c, nil
		}
	}
	c, err := convertProperty(p)
	if err != nil {
		return nil, err
	}
	if m != nil {
		m[key] = c
	}
	return c, nil
}

// convertProperty normalizes p's value and parses the fields the bundle
// takes from the well-known types.
func convertProperty(p declcfg.Property) (*convertedProp, error) {
	value, err := normalizeJSON(p.Value)
	if err != nil {
		return nil, fmt.Errorf("property %s: %w", p.Type, err)
	}
	c := &convertedProp{prop: &api.Property{Type: p.Type, Value: value}}
	parseErr := func(err error) (*convertedProp, error) {
		return nil, fmt.Errorf("parse %s property: %w", p.Type, err)
	}
	switch p.Type {
	case declcfg.PropertyPackage:
		v, err := declcfg.ParsePackageValue(p.Value)
		if err != nil {
			return parseErr(err)
		}
		c.version = v.Version
	case declcfg.PropertyGVK, declcfg.PropertyGVKRequired:
		v, err := declcfg.ParseGVKValue(p.Value)
		if err != nil {
			return parseErr(err)
		}
		c.gvk = &api.GroupVersionKind{Group: v.Group, Version: v.Version, Kind: v.Kind}
		if p.Type == declcfg.PropertyGVKRequired {
			c.dep = &api.Dependency{Type: declcfg.PropertyGVK, Value: value}
		}
	case declcfg.PropertyPackageRequired:
		v, err := declcfg.ParsePackageRequiredValue(p.Value)
		if err != nil {
			return parseErr(err)
		}
		// The API's olm.package dependency carries the range as "version".
		dep, err := encodeJSON(struct {
			PackageName string `json:"packageName"`
			Version     string `json:"version"`
		}{v.PackageName, v.VersionRange}, false)
		if err != nil {
			return nil, err
		}
		c.dep = &api.Dependency{Type: declcfg.PropertyPackage, Value: dep}
	}
	return c, nil
}

// ownPackageValue is the olm.package property value naming exactly pkg
// and version, as normalizeJSON leaves it ("" in the impossible case
// that it does not encode, which no property equals).
func ownPackageValue(pkg, version string) string {
	v, err := encodeJSON(struct {
		PackageName string `json:"packageName"`
		Version     string `json:"version"`
	}{pkg, version}, false)
	if err != nil {
		return ""
	}
	return v
}

// normalizeJSON re-encodes a property value the way opm's loader leaves
// it: compact, keys sorted at every level, HTML characters unescaped,
// numbers through float64.
func normalizeJSON(raw json.RawMessage) (string, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", fmt.Errorf("decode value: %w", err)
	}
	return encodeJSON(v, false)
}

func encodeJSON(v any, escapeHTML bool) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("encode value: %w", err)
	}
	return string(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

// syntheticCSV builds the CSV JSON for a bundle described only by its
// olm.csv.metadata property (manifest.SyntheticCSV): spec.version is the
// bundle version when it is semver, the package supplies the icon and the
// fallback description.
func syntheticCSV(b *model.Bundle, p declcfg.Property, version string) (string, error) {
	var m manifest.CSVMetadata
	if err := p.ParseValue(&m); err != nil {
		return "", err
	}
	s := manifest.SyntheticCSV{Name: b.Name, Metadata: m}
	if v, err := semver.Parse(version); err == nil {
		s.Version = v.String()
	}
	if b.Package != nil {
		s.PackageDescription = b.Package.Description
		if b.Package.Icon != nil {
			s.Icon = manifest.IconFromData(b.Package.Icon.Data, b.Package.Icon.MediaType)
		}
	}
	for _, ri := range b.RelatedImages {
		s.RelatedImages = append(s.RelatedImages, manifest.RelatedImage{Name: ri.Name, Image: ri.Image})
	}
	out, err := s.JSON()
	if err != nil {
		return "", err
	}
	return string(out), nil
}

// deprecation turns a model deprecation message into the API's, nil when unset.
func deprecation(msg string) *api.Deprecation {
	if msg == "" {
		return nil
	}
	return &api.Deprecation{Message: msg}
}

// convertPackage prepares the api messages of one package: the package
// with its channels, and one bundle message per channel membership
// (messages of the same bundle share its channel-independent fields).
// Without manifests, csvJson and object are left empty.
func convertPackage(mp *model.Package, manifests bool) (*api.Package, []*api.Bundle, error) {
	var bundles []*api.Bundle
	p := &api.Package{Name: mp.Name, Deprecation: deprecation(mp.Deprecation)}
	if mp.DefaultChannel != nil {
		p.DefaultChannelName = mp.DefaultChannel.Name
	}
	shared := map[string]*bundleData{}
	memo := propMemo{}
	for _, cn := range sortedNames(mp.Channels) {
		mc := mp.Channels[cn]
		head, err := mc.Head()
		if err != nil {
			return nil, nil, err
		}
		p.Channels = append(p.Channels, &api.Channel{Name: mc.Name, CsvName: head.Name, Deprecation: deprecation(mc.Deprecation)})
		for _, bn := range sortedNames(mc.Bundles) { // in order: the index numbers bundles as met
			mb := mc.Bundles[bn]
			d, ok := shared[mb.Name]
			if !ok {
				if d, err = convertBundle(manifests, mb, memo); err != nil {
					return nil, nil, fmt.Errorf("package %q, channel %q: %w", mp.Name, mc.Name, err)
				}
				shared[mb.Name] = d
			}
			bundles = append(bundles, &api.Bundle{
				CsvName:      mb.Name,
				PackageName:  mp.Name,
				ChannelName:  mc.Name,
				CsvJson:      d.csvJSON,
				Object:       d.objects,
				BundlePath:   mb.Image,
				ProvidedApis: d.provided,
				RequiredApis: d.required,
				Version:      d.version,
				SkipRange:    mb.SkipRange,
				Dependencies: d.dependencies,
				Properties:   d.properties,
				Replaces:     mb.Replaces,
				Skips:        mb.Skips,
				Deprecation:  deprecation(mb.Deprecation),
			})
		}
	}
	return p, bundles, nil
}

// sortedNames are a map's keys in order.
func sortedNames[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
