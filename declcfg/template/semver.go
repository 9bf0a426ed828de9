package template

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/manifest"
)

// Archetype is one of the semver template's bundle lists, from the least
// to the most stable.
type Archetype string

// The archetypes in increasing stability.
const (
	Candidate Archetype = "candidate"
	Fast      Archetype = "fast"
	Stable    Archetype = "stable"
)

// Archetypes lists the archetypes in increasing stability.
var Archetypes = []Archetype{Candidate, Fast, Stable}

// StreamKind is the kind of channel a semver template generates.
type StreamKind string

// The channel kinds: one channel per major version or per minor version.
const (
	StreamMajor StreamKind = "major"
	StreamMinor StreamKind = "minor"
)

// Semver is an olm.semver template.
type Semver struct {
	Schema                       string     `json:"schema"`
	GenerateMajorChannels        bool       `json:"generateMajorChannels,omitempty"`
	GenerateMinorChannels        bool       `json:"generateMinorChannels,omitempty"`
	DefaultChannelTypePreference StreamKind `json:"defaultChannelTypePreference,omitempty"`
	Candidate                    Bundles    `json:"candidate,omitempty"`
	Fast                         Bundles    `json:"fast,omitempty"`
	Stable                       Bundles    `json:"stable,omitempty"`
}

// Bundles is the bundle list of one archetype.
type Bundles struct {
	Bundles []BundleRef `json:"bundles,omitempty"`
}

// BundleRef names a bundle by its image.
type BundleRef struct {
	Image string `json:"image,omitempty"`
}

// list returns the bundle list of archetype a.
func (s *Semver) list(a Archetype) []BundleRef {
	switch a {
	case Candidate:
		return s.Candidate.Bundles
	case Fast:
		return s.Fast.Bundles
	}
	return s.Stable.Bundles
}

// semverKeys are the keys of the template document; opm decodes it
// strictly (unknown keys are errors) but case-insensitively.
var semverKeys = []string{"schema", "generateMajorChannels", "generateMinorChannels", "defaultChannelTypePreference", "candidate", "fast", "stable"}

// parseSemver decodes and checks an olm.semver document.
func parseSemver(doc json.RawMessage, file string) (*Semver, error) {
	if err := strictKeys(doc, semverKeys, "", file); err != nil {
		return nil, err
	}
	var s Semver
	if err := json.Unmarshal(doc, &s); err != nil {
		return nil, &Error{File: file, Err: fmt.Errorf("decode template: %w", err)}
	}
	for _, a := range Archetypes {
		var raw map[string]json.RawMessage
		_ = json.Unmarshal(doc, &raw)
		for k, v := range raw {
			if !strings.EqualFold(k, string(a)) {
				continue
			}
			if err := strictKeys(v, []string{"bundles"}, string(a), file); err != nil {
				return nil, err
			}
			var list struct {
				Bundles []json.RawMessage `json:"bundles"`
			}
			_ = json.Unmarshal(v, &list)
			for i, b := range list.Bundles {
				if err := strictKeys(b, []string{"image"}, fmt.Sprintf("%s.bundles[%d]", a, i), file); err != nil {
					return nil, err
				}
			}
		}
	}
	return &s, s.normalize(file)
}

// strictKeys fails on a key of the object doc that matches none of keys
// (case-insensitively, as encoding/json matches them).
func strictKeys(doc json.RawMessage, keys []string, entry, file string) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(doc, &raw); err != nil {
		return &Error{File: file, Entry: entry, Err: fmt.Errorf("decode template: %w", err)}
	}
	for k := range raw {
		known := false
		for _, want := range keys {
			known = known || strings.EqualFold(k, want)
		}
		if !known {
			return &Error{File: file, Entry: entry, Field: k, Err: fmt.Errorf("unknown field %q (known: %s)", k, strings.Join(keys, ", "))}
		}
	}
	return nil
}

// normalize applies opm's defaults: minor channels when neither kind is
// asked for, and a default channel preference matching the kinds.
func (s *Semver) normalize(file string) error {
	if !s.GenerateMajorChannels && !s.GenerateMinorChannels {
		s.GenerateMinorChannels = true
	}
	field := func(err error) error { return &Error{File: file, Field: "defaultChannelTypePreference", Err: err} }
	switch s.DefaultChannelTypePreference {
	case "":
		s.DefaultChannelTypePreference = StreamMajor
		if s.GenerateMinorChannels {
			s.DefaultChannelTypePreference = StreamMinor
		}
	case StreamMinor:
		if !s.GenerateMinorChannels {
			return field(errors.New("schema attribute mismatch: DefaultChannelTypePreference set to 'minor' doesn't make sense if not generating minor-version channels"))
		}
	case StreamMajor:
		if !s.GenerateMajorChannels {
			return field(errors.New("schema attribute mismatch: DefaultChannelTypePreference set to 'major' doesn't make sense if not generating major-version channels"))
		}
	default:
		return field(fmt.Errorf("unknown DefaultChannelTypePreference: %q\nValid values are 'major' or 'minor'", s.DefaultChannelTypePreference))
	}
	return nil
}

// renderSemver renders every distinct image once, then generates the
// channels from the versions of each list.
func renderSemver(ctx context.Context, doc json.RawMessage, o options) (*declcfg.DeclarativeConfig, error) {
	s, err := parseSemver(doc, o.file)
	if err != nil {
		return nil, err
	}
	var refs []string
	where := map[string]string{} // first entry naming each image
	for _, a := range Archetypes {
		for i, b := range s.list(a) {
			entry := fmt.Sprintf("%s.bundles[%d]", a, i)
			if b.Image == "" {
				return nil, &Error{File: o.file, Entry: entry, Field: "image", Err: errors.New("missing: a semver template bundle entry names the bundle image")}
			}
			if _, ok := where[b.Image]; !ok {
				where[b.Image] = entry
				refs = append(refs, b.Image)
			}
		}
	}
	if len(refs) == 0 {
		return nil, &Error{File: o.file, Err: errors.New("render: no bundles specified or no bundles could be rendered")}
	}
	rendered, err := renderAll(ctx, refs, o, true, func(i int) (string, string) { return where[refs[i]], "image" })
	if err != nil {
		return nil, err
	}
	byImage := make(map[string]*declcfg.Bundle, len(refs))
	for i, b := range rendered {
		byImage[refs[i]] = b
	}
	return s.generate(byImage, o.file, o.keep.full)
}

// generate builds the package, channels and bundles from the rendered
// bundles of the template's images (as a keeper kept them: full gives
// the whole bundle, for the default channel head's CSV).
func (s *Semver) generate(byImage map[string]*declcfg.Bundle, file string, full func(*declcfg.Bundle) (*declcfg.Bundle, error)) (*declcfg.DeclarativeConfig, error) {
	var pkg, pkgEntry string
	lists := map[Archetype][]versioned{}
	for _, a := range Archetypes {
		seen := map[string]string{}     // bundle name -> entry
		versions := map[string]string{} // version without build metadata -> entry
		for i, ref := range s.list(a) {
			entry := fmt.Sprintf("%s.bundles[%d]", a, i)
			b := byImage[ref.Image]
			fail := func(err error) error { return &Error{File: file, Entry: entry, Field: "image", Err: err} }
			pv, err := packageProperty(b)
			if err != nil {
				return nil, fail(err)
			}
			v, err := semver.Parse(pv.Version)
			if err != nil {
				return nil, fail(fmt.Errorf("bundle %q has invalid version %q: %v", b.Name, pv.Version, err))
			}
			if pkg == "" {
				pkg, pkgEntry = pv.PackageName, entry
			} else if pv.PackageName != pkg {
				return nil, fail(fmt.Errorf("%q renders bundle %s of package %q, but this template is for package %q (of %s)", ref.Image, b.Name, pv.PackageName, pkg, pkgEntry))
			}
			if prev, ok := seen[b.Name]; ok {
				return nil, fail(fmt.Errorf("duplicate bundle name %q: %s lists it too", b.Name, prev))
			}
			core := v
			core.Build = nil
			if prev, ok := versions[core.String()]; ok {
				return nil, fail(fmt.Errorf("bundle %s has version %s, which %s lists already (versions that differ only by build metadata cannot be ordered)", b.Name, v, prev))
			}
			seen[b.Name], versions[core.String()] = entry, entry
			lists[a] = append(lists[a], versioned{name: b.Name, version: v})
		}
	}
	out := &declcfg.DeclarativeConfig{Packages: []declcfg.Package{{Schema: declcfg.SchemaPackage, Name: pkg}}}
	out.Channels, out.Packages[0].DefaultChannel = s.channels(pkg, lists)
	if head := channelHead(out.Channels, out.Packages[0].DefaultChannel); head != "" {
		for _, b := range byImage {
			if b.Name == head {
				whole, err := full(b)
				if err != nil {
					return nil, &Error{File: file, Err: fmt.Errorf("bundle %s: %w", b.Name, err)}
				}
				fillPackageMeta(&out.Packages[0], whole)
				break
			}
		}
	}
	done := map[string]bool{}
	for _, a := range Archetypes {
		for _, ref := range s.list(a) {
			if !done[ref.Image] {
				done[ref.Image] = true
				out.Bundles = append(out.Bundles, *byImage[ref.Image])
			}
		}
	}
	return out, nil
}

// channelHead is the last entry of the channel named name (the highest
// version, as the template appends in version order).
func channelHead(chs []declcfg.Channel, name string) string {
	for _, c := range chs {
		if c.Name == name && len(c.Entries) > 0 {
			return c.Entries[len(c.Entries)-1].Name
		}
	}
	return ""
}

// fillPackageMeta sets the package description and icon from the CSV of
// b, as opm's semver template does with the default channel's head. A
// bundle read from a catalog has its CSV among its olm.bundle.object
// properties, or only an olm.csv.metadata property (no icon).
func fillPackageMeta(p *declcfg.Package, b *declcfg.Bundle) {
	csvJSON := []byte(b.CsvJSON)
	var objects [][]byte
	for _, prop := range b.Properties {
		var v declcfg.BundleObjectValue
		switch prop.Type {
		case declcfg.PropertyBundleObject:
			if csvJSON == nil && prop.ParseValue(&v) == nil {
				objects = append(objects, v.Data)
			}
		case declcfg.PropertyCSVMetadata:
			if m, err := declcfg.ParseCSVMetadataValue(prop.Value); err == nil {
				p.Description = m.Description
			}
		}
	}
	if i := manifest.FindCSV(objects); csvJSON == nil && i >= 0 {
		csvJSON = objects[i]
	}
	if csvJSON == nil {
		return
	}
	csv, err := manifest.ParseCSV(csvJSON)
	if err != nil {
		return
	}
	if d, err := csv.Description(); err == nil {
		p.Description = d
	}
	icons, err := csv.Icons()
	if err != nil || len(icons) == 0 {
		return
	}
	if raw, err := base64.StdEncoding.DecodeString(icons[0].Data); err == nil && len(raw) > 0 {
		p.Icon = &declcfg.Icon{Data: raw, MediaType: icons[0].MediaType}
	}
}

// packageProperty returns the one olm.package property of b (the strict
// rule: templates fail where opm's do), its errors naming the bundle.
func packageProperty(b *declcfg.Bundle) (declcfg.PackageValue, error) {
	pv, err := declcfg.PackageOf(b.Properties)
	var count *declcfg.PackageCountError
	switch {
	case errors.As(err, &count):
		return pv, fmt.Errorf("bundle %q has %w", b.Name, err)
	case err != nil:
		return pv, fmt.Errorf("bundle %q: %s property: %w", b.Name, declcfg.PropertyPackage, err)
	}
	return pv, nil
}
