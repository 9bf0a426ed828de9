package template

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/operator-catalog/olmcat/declcfg"
)

// Derived is the template FromPackage made for one package.
type Derived struct {
	// Package is the package name.
	Package string
	// Type is the template's type: the one asked for, or basic when a
	// semver template cannot express the package.
	Type Type
	// Reason says why the package fell back to basic ("" otherwise).
	Reason FallbackReason
	// Detail says what in the package made it fall back.
	Detail string

	cfg    *declcfg.DeclarativeConfig
	semver *Semver
}

// FallbackReason classifies why a package could not be a semver template.
type FallbackReason string

// The reasons a package falls back to a basic template.
const (
	// ReasonVersion: a bundle version is not strict semver, or two
	// bundles of one archetype share a version.
	ReasonVersion FallbackReason = "non-semver-version"
	// ReasonChannelName: a channel is not named <archetype>-v<X>[.<Y>]
	// (archetype candidate, fast or stable) or holds bundles of other
	// versions than its name says.
	ReasonChannelName FallbackReason = "channel-name"
	// ReasonEdges: the replaces, skips or skipRange edges are not the
	// ones the semver template generates (hand-made skips, say).
	ReasonEdges FallbackReason = "edges"
	// ReasonDefaultChannel: the semver template would pick another
	// default channel.
	ReasonDefaultChannel FallbackReason = "default-channel"
	// ReasonBlobs: the package has blobs or fields a semver template
	// cannot carry (deprecations, properties, other schemas, an icon or
	// description other than the CSV's).
	ReasonBlobs FallbackReason = "blobs"
)

// FromPackage turns the catalog of one package into the template that
// renders back to it: a basic template (bundles by image), or with want
// TypeSemver a semver template when the package's channels, edges and
// default channel are exactly the ones the semver template generates,
// else a basic template with the reason. Every bundle must have an image,
// and no two bundles the same one, since templates name bundles by image.
func FromPackage(cfg *declcfg.DeclarativeConfig, want Type) (*Derived, error) {
	if len(cfg.Packages) != 1 {
		return nil, fmt.Errorf("want the blobs of one package, got %d olm.package blobs", len(cfg.Packages))
	}
	d := &Derived{Package: cfg.Packages[0].Name, Type: TypeBasic, cfg: cfg}
	images := make(map[string]string, len(cfg.Bundles))
	for _, b := range cfg.Bundles {
		if b.Image == "" {
			return nil, fmt.Errorf("package %s: bundle %s has no image: a template names bundles by image only", d.Package, b.Name)
		}
		if prev, ok := images[b.Image]; ok {
			return nil, fmt.Errorf("package %s: bundles %s and %s have the same image %s: a template names bundles by image only", d.Package, prev, b.Name, b.Image)
		}
		images[b.Image] = b.Name
	}
	switch want {
	case TypeBasic:
	case TypeSemver:
		s, reason, detail := semverFor(cfg)
		if s != nil {
			d.Type, d.semver = TypeSemver, s
		} else {
			d.Reason, d.Detail = reason, detail
		}
	default:
		return nil, fmt.Errorf("cannot write a %s template (basic or semver)", want)
	}
	return d, nil
}

// Write writes the template as JSON (four-space indent) or YAML, in the
// shape opm alpha convert-template writes.
func (d *Derived) Write(w io.Writer, f declcfg.Format) error {
	if d.semver == nil {
		var buf bytes.Buffer
		if err := declcfg.WriteStream(&buf, d.cfg, declcfg.FormatJSON); err != nil {
			return err
		}
		return Convert(w, &buf, TypeBasic, f)
	}
	return writeDocument(w, d.semver, f)
}

// semverChannel matches the channel names a semver template generates.
var semverChannel = regexp.MustCompile(`^(candidate|fast|stable)-v(0|[1-9][0-9]*)(?:\.(0|[1-9][0-9]*))?$`)

// semverFor builds the semver template of a package and checks that it
// renders back to the package's graph; else it says why not.
func semverFor(cfg *declcfg.DeclarativeConfig) (*Semver, FallbackReason, string) {
	if reason, detail := semverBlobs(cfg); reason != "" {
		return nil, reason, detail
	}
	byName := make(map[string]*declcfg.Bundle, len(cfg.Bundles))
	byImage := make(map[string]*declcfg.Bundle, len(cfg.Bundles))
	versions := make(map[string]semver.Version, len(cfg.Bundles))
	for i := range cfg.Bundles {
		b := &cfg.Bundles[i]
		byName[b.Name], byImage[b.Image] = b, b
		pv, err := packageProperty(b)
		if err != nil {
			return nil, ReasonVersion, err.Error()
		}
		v, err := semver.Parse(pv.Version)
		if err != nil {
			return nil, ReasonVersion, fmt.Sprintf("bundle %s has version %q, which is not semver: %v", b.Name, pv.Version, err)
		}
		versions[b.Name] = v
	}
	s := &Semver{Schema: SchemaSemver}
	for _, ch := range cfg.Channels {
		m := semverChannel.FindStringSubmatch(ch.Name)
		if m == nil {
			return nil, ReasonChannelName, fmt.Sprintf("channel %q is not named <candidate|fast|stable>-v<major>[.<minor>]", ch.Name)
		}
		if m[3] == "" {
			s.GenerateMajorChannels = true
		} else {
			s.GenerateMinorChannels = true
		}
		if detail := channelVersions(ch, m, versions); detail != "" {
			return nil, ReasonChannelName, detail
		}
		for _, e := range ch.Entries {
			b := byName[e.Name]
			if b == nil {
				return nil, ReasonEdges, fmt.Sprintf("channel %s lists %s, which is no bundle of the package", ch.Name, e.Name)
			}
			list := s.listRef(Archetype(m[1]))
			if !slices.Contains(*list, BundleRef{Image: b.Image}) {
				*list = append(*list, BundleRef{Image: b.Image})
			}
		}
	}
	return s.matching(cfg, byImage)
}

// semverBlobs says what of the package a semver template cannot carry.
func semverBlobs(cfg *declcfg.DeclarativeConfig) (FallbackReason, string) {
	p := cfg.Packages[0]
	switch {
	case len(cfg.Deprecations) > 0:
		return ReasonBlobs, "the package has an olm.deprecations blob"
	case len(cfg.Others) > 0:
		return ReasonBlobs, fmt.Sprintf("the package has a blob of schema %q", cfg.Others[0].Schema)
	case len(p.Properties) > 0:
		return ReasonBlobs, "the olm.package blob has properties"
	case len(cfg.Channels) == 0:
		return ReasonBlobs, "the package has no channel"
	}
	for _, ch := range cfg.Channels {
		if len(ch.Properties) > 0 {
			return ReasonBlobs, fmt.Sprintf("channel %s has properties", ch.Name)
		}
	}
	return "", ""
}

// channelVersions checks that a channel named for major (and minor)
// version holds only bundles of that version.
func channelVersions(ch declcfg.Channel, m []string, versions map[string]semver.Version) string {
	major, _ := strconv.ParseUint(m[2], 10, 64)
	for _, e := range ch.Entries {
		v, ok := versions[e.Name]
		if !ok {
			continue
		}
		if v.Major != major || (m[3] != "" && strconv.FormatUint(v.Minor, 10) != m[3]) {
			return fmt.Sprintf("channel %s holds %s, version %s", ch.Name, e.Name, v)
		}
	}
	return ""
}

func (s *Semver) listRef(a Archetype) *[]BundleRef {
	switch a {
	case Candidate:
		return &s.Candidate.Bundles
	case Fast:
		return &s.Fast.Bundles
	}
	return &s.Stable.Bundles
}

// matching renders s in memory with each default channel preference and
// returns the first whose channels and default channel are the package's.
func (s *Semver) matching(cfg *declcfg.DeclarativeConfig, byImage map[string]*declcfg.Bundle) (*Semver, FallbackReason, string) {
	prefs := []StreamKind{""}
	if s.GenerateMajorChannels && s.GenerateMinorChannels {
		prefs = append(prefs, StreamMajor)
	}
	var picked string
	for _, pref := range prefs {
		try := *s
		try.DefaultChannelTypePreference = pref
		if err := try.normalize(""); err != nil {
			return nil, ReasonBlobs, err.Error()
		}
		out, err := try.generate(byImage, "", inMemory{}.full)
		if err != nil {
			var te *Error
			if errors.As(err, &te) {
				err = te.Err
			}
			return nil, ReasonVersion, err.Error()
		}
		if detail := diffChannels(cfg.Channels, out.Channels); detail != "" {
			return nil, ReasonEdges, detail
		}
		if picked == "" {
			picked = out.Packages[0].DefaultChannel
		}
		if out.Packages[0].DefaultChannel == cfg.Packages[0].DefaultChannel {
			if detail := diffPackageMeta(cfg.Packages[0], out.Packages[0]); detail != "" {
				return nil, ReasonBlobs, detail
			}
			res := *s
			res.DefaultChannelTypePreference = pref
			return &res, "", ""
		}
	}
	return nil, ReasonDefaultChannel, fmt.Sprintf("the default channel is %s; the semver template picks %s", cfg.Packages[0].DefaultChannel, picked)
}

// diffPackageMeta says how the package's description and icon differ
// from the ones the semver template copies from the default channel
// head's CSV.
func diffPackageMeta(have, gen declcfg.Package) string {
	switch {
	case have.Description != gen.Description:
		return "the package description is not the one the semver template copies from the default channel head's CSV"
	case (have.Icon == nil) != (gen.Icon == nil),
		have.Icon != nil && (!bytes.Equal(have.Icon.Data, gen.Icon.Data) || have.Icon.MediaType != gen.Icon.MediaType):
		return "the package icon is not the one the semver template copies from the default channel head's CSV"
	}
	return ""
}

// diffChannels describes the first difference between the package's
// channels and the generated ones ("" when they hold the same entries
// with the same edges).
func diffChannels(have, gen []declcfg.Channel) string {
	genBy := map[string]declcfg.Channel{}
	for _, c := range gen {
		genBy[c.Name] = c
	}
	for _, c := range have {
		g, ok := genBy[c.Name]
		if !ok {
			return fmt.Sprintf("channel %s is not one the semver template generates from its bundles", c.Name)
		}
		delete(genBy, c.Name)
		want := map[string]declcfg.ChannelEntry{}
		for _, e := range g.Entries {
			want[e.Name] = e
		}
		for _, e := range c.Entries {
			w, ok := want[e.Name]
			if !ok {
				return fmt.Sprintf("channel %s holds %s, which the semver template does not put there", c.Name, e.Name)
			}
			delete(want, e.Name)
			if got, exp := describeEdges(e), describeEdges(w); got != exp {
				return fmt.Sprintf("channel %s entry %s has %s; the semver template gives %s", c.Name, e.Name, got, exp)
			}
		}
		if len(want) > 0 {
			return fmt.Sprintf("channel %s lacks %s, which the semver template puts there", c.Name, slices.Sorted(maps.Keys(want))[0])
		}
	}
	if len(genBy) > 0 {
		return fmt.Sprintf("the semver template also generates channel %s", slices.Sorted(maps.Keys(genBy))[0])
	}
	return ""
}

// describeEdges renders an entry's edges, skips sorted.
func describeEdges(e declcfg.ChannelEntry) string {
	skips := slices.Clone(e.Skips)
	slices.Sort(skips)
	parts := []string{"replaces " + orNone(e.Replaces), "skips [" + strings.Join(skips, " ") + "]"}
	if e.SkipRange != "" {
		parts = append(parts, "skipRange "+e.SkipRange)
	}
	return strings.Join(parts, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
