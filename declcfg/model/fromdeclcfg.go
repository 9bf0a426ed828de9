package model

import (
	"strings"

	"github.com/blang/semver/v4"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/operator-catalog/olmcat/declcfg"
)

// FromDeclcfg validates cfg and links it into a Model. It checks every
// blob and the graph of every channel and reports all problems at once as
// a *ValidationError; the Model is returned only when there is none. The
// model-level checks run through the model types' validate steps, and the
// error unwraps to their nested *Error values.
func FromDeclcfg(cfg *declcfg.DeclarativeConfig) (*Model, error) {
	mb := &modelBuild{
		cfg:      cfg,
		m:        &Model{Packages: map[string]*Package{}},
		pkgBlobs: map[string]*declcfg.Package{},
		bundles:  map[string]map[string]*bundleInfo{},
	}
	mb.packages()
	mb.channels()
	mb.defaultChannels()
	mb.bundleBlobs()
	mb.channelEntries()
	mb.deprecations()
	ps, m := mb.ps, mb.m
	nested := m.validate(false)
	ps = append(ps, flattenErrors(nested)...)
	ps.sortByOrigin()
	if len(ps) > 0 {
		return nil, &ValidationError{Problems: ps, nested: nested}
	}
	return m, nil
}

// modelBuild is a Model being linked from a DeclarativeConfig, one schema
// at a time, collecting problems.
type modelBuild struct {
	cfg *declcfg.DeclarativeConfig
	m   *Model
	ps  problems
	// pkgBlobs is the olm.package blob that defined each package.
	pkgBlobs map[string]*declcfg.Package
	// linked are the channels with their entries, to link to bundles once
	// the bundles are known.
	linked []chanEntries
	// bundles are the bundle blobs by package and name; bundleOrder in
	// blob order.
	bundles     map[string]map[string]*bundleInfo
	bundleOrder []*bundleInfo
}

type chanEntries struct {
	ch      *Channel
	entries []declcfg.ChannelEntry
}

type bundleInfo struct {
	b        *declcfg.Bundle
	version  semver.Version
	used     bool
	problems problems
}

// packages checks the olm.package blobs and creates the model's packages.
func (mb *modelBuild) packages() {
	for i := range mb.cfg.Packages {
		p := &mb.cfg.Packages[i]
		if p.Name == "" {
			mb.ps.add(p.Origin, declcfg.SchemaPackage, "", "", "package name must be set")
			continue
		}
		if prev, dup := mb.pkgBlobs[p.Name]; dup {
			mb.ps.add(p.Origin, declcfg.SchemaPackage, p.Name, "", "duplicate package (first defined at %s)", originOrMemory(prev.Origin))
			continue
		}
		if errs := validation.IsDNS1123Label(p.Name); len(errs) > 0 {
			mb.ps.add(p.Origin, declcfg.SchemaPackage, p.Name, "", "invalid package name: %s", strings.Join(errs, "; "))
		}
		mb.pkgBlobs[p.Name] = p
		mb.m.Packages[p.Name] = &Package{
			Name:        p.Name,
			Description: p.Description,
			Icon:        p.Icon,
			Channels:    map[string]*Channel{},
			Origin:      p.Origin,
		}
	}
}

// channels checks the olm.channel blobs and creates the model's channels
// (linked to bundles by channelEntries).
func (mb *modelBuild) channels() {
	for i := range mb.cfg.Channels {
		c := &mb.cfg.Channels[i]
		if c.Package == "" {
			mb.ps.add(c.Origin, declcfg.SchemaChannel, "", c.Name, "channel package must be set")
			continue
		}
		mp := mb.m.Packages[c.Package]
		if mp == nil {
			mb.ps.add(c.Origin, declcfg.SchemaChannel, c.Package, c.Name, "package %q not found", c.Package)
			continue
		}
		if c.Name == "" {
			mb.ps.add(c.Origin, declcfg.SchemaChannel, c.Package, "", "channel name must be set")
			continue
		}
		if prev, dup := mp.Channels[c.Name]; dup {
			mb.ps.add(c.Origin, declcfg.SchemaChannel, c.Package, c.Name, "duplicate channel (first defined at %s)", originOrMemory(prev.Origin))
			continue
		}
		mc := &Channel{Package: mp, Name: c.Name, Bundles: map[string]*Bundle{}, Origin: c.Origin}
		mp.Channels[c.Name] = mc
		seen := map[string]bool{}
		for _, e := range c.Entries {
			if e.Name == "" {
				mb.ps.add(c.Origin, declcfg.SchemaChannel, c.Package, c.Name, "entry name must be set")
				continue
			}
			if seen[e.Name] {
				mb.ps.add(c.Origin, declcfg.SchemaChannel, c.Package, c.Name, "duplicate entry %q", e.Name)
				continue
			}
			seen[e.Name] = true
		}
		mb.linked = append(mb.linked, chanEntries{ch: mc, entries: c.Entries})
	}
}

// defaultChannels links each package to its default channel.
func (mb *modelBuild) defaultChannels() {
	for i := range mb.cfg.Packages {
		p := &mb.cfg.Packages[i]
		name := p.Name
		if p.Name == "" || mb.pkgBlobs[name] != p {
			continue
		}
		mp := mb.m.Packages[name]
		switch ch := mp.Channels[p.DefaultChannel]; {
		case p.DefaultChannel == "":
			mb.ps.add(p.Origin, declcfg.SchemaPackage, name, "", "default channel must be set")
		case ch == nil:
			mb.ps.add(p.Origin, declcfg.SchemaPackage, name, "", "default channel %q not found in the package's channels", p.DefaultChannel)
		default:
			mp.DefaultChannel = ch
		}
	}
}

// bundleBlobs checks the olm.bundle blobs: identity checks in order, then
// the per-bundle content checks (independent of each other, and the
// costly part: property schemas, semver, image references) in parallel,
// merged back in blob order so the report is deterministic.
func (mb *modelBuild) bundleBlobs() {
	pre := make([]problems, len(mb.cfg.Bundles))
	infos := make([]*bundleInfo, len(mb.cfg.Bundles))
	for i := range mb.cfg.Bundles {
		b := &mb.cfg.Bundles[i]
		if b.Name == "" {
			pre[i].add(b.Origin, declcfg.SchemaBundle, b.Package, "", "bundle name must be set")
			continue
		}
		if b.Package == "" {
			pre[i].add(b.Origin, declcfg.SchemaBundle, "", b.Name, "bundle package must be set")
			continue
		}
		if mb.m.Packages[b.Package] == nil {
			pre[i].add(b.Origin, declcfg.SchemaBundle, b.Package, b.Name, "package %q not found", b.Package)
			continue
		}
		byName := mb.bundles[b.Package]
		if byName == nil {
			byName = map[string]*bundleInfo{}
			mb.bundles[b.Package] = byName
		}
		if prev, dup := byName[b.Name]; dup {
			pre[i].add(b.Origin, declcfg.SchemaBundle, b.Package, b.Name, "duplicate bundle (first defined at %s)", originOrMemory(prev.b.Origin))
			continue
		}
		info := &bundleInfo{b: b}
		byName[b.Name] = info
		infos[i] = info
		mb.bundleOrder = append(mb.bundleOrder, info)
	}
	parallelFor(len(mb.bundleOrder), func(i int) {
		info := mb.bundleOrder[i]
		b := info.b
		info.version = checkBundleBlob(&info.problems, b)
		checkBundleRules(&info.problems, b.Origin, b.Package, b.Name, b.Image, b.Properties, len(b.Objects))
	})
	for i := range mb.cfg.Bundles {
		mb.ps = append(mb.ps, pre[i]...)
		if infos[i] != nil {
			mb.ps = append(mb.ps, infos[i].problems...)
			infos[i].problems = nil
		}
	}
}

// channelEntries links channel entries to bundles; a bundle in no channel
// is a problem.
func (mb *modelBuild) channelEntries() {
	for _, le := range mb.linked {
		mc := le.ch
		for _, e := range le.entries {
			if e.Name == "" || mc.Bundles[e.Name] != nil {
				continue
			}
			info := mb.bundles[mc.Package.Name][e.Name]
			if info == nil {
				mb.ps.add(mc.Origin, declcfg.SchemaChannel, mc.Package.Name, mc.Name, "entry %q: bundle not found", e.Name)
				continue
			}
			info.used = true
			b := info.b
			mc.Bundles[e.Name] = &Bundle{
				Package:       mc.Package,
				Channel:       mc,
				Name:          b.Name,
				Image:         b.Image,
				Replaces:      e.Replaces,
				Skips:         e.Skips,
				SkipRange:     e.SkipRange,
				Properties:    b.Properties,
				RelatedImages: b.RelatedImages,
				CsvJSON:       b.CsvJSON,
				Objects:       b.Objects,
				Version:       info.version,
				Origin:        b.Origin,
			}
		}
	}
	for _, info := range mb.bundleOrder {
		if !info.used {
			mb.ps.add(info.b.Origin, declcfg.SchemaBundle, info.b.Package, info.b.Name, "bundle not found in any channel entries")
		}
	}
}

// deprecations checks the olm.deprecations blobs and attaches their
// messages to packages, channels and bundles.
func (mb *modelBuild) deprecations() {
	seenDep := map[string]declcfg.Origin{}
	for i := range mb.cfg.Deprecations {
		d := &mb.cfg.Deprecations[i]
		if d.Package == "" {
			mb.ps.add(d.Origin, declcfg.SchemaDeprecations, "", "", "deprecation package must be set")
			continue
		}
		mp := mb.m.Packages[d.Package]
		if mp == nil {
			mb.ps.add(d.Origin, declcfg.SchemaDeprecations, d.Package, "", "package %q not found", d.Package)
			continue
		}
		if prev, dup := seenDep[d.Package]; dup {
			mb.ps.add(d.Origin, declcfg.SchemaDeprecations, d.Package, "", "duplicate olm.deprecations blob for the package (first defined at %s)", originOrMemory(prev))
			continue
		}
		seenDep[d.Package] = d.Origin
		refs := map[declcfg.PackageScopedReference]bool{}
		for k, e := range d.Entries {
			ref := e.Reference
			bad := func(format string, args ...any) {
				mb.ps.add(d.Origin, declcfg.SchemaDeprecations, d.Package, "", "entry #%d: "+format, append([]any{k}, args...)...)
			}
			if refs[ref] {
				bad("duplicate reference %s %q", ref.Schema, ref.Name)
				continue
			}
			refs[ref] = true
			if e.Message == "" {
				bad("message must be set")
			}
			switch ref.Schema {
			case "":
				bad("reference schema must be set")
			case declcfg.SchemaPackage:
				if ref.Name != "" {
					bad("olm.package reference must not have a name (got %q)", ref.Name)
					continue
				}
				mp.Deprecation = e.Message
			case declcfg.SchemaChannel:
				if ref.Name == "" {
					bad("olm.channel reference name must be set")
					continue
				}
				mc := mp.Channels[ref.Name]
				if mc == nil {
					bad("channel %q not found", ref.Name)
					continue
				}
				mc.Deprecation = e.Message
			case declcfg.SchemaBundle:
				if ref.Name == "" {
					bad("olm.bundle reference name must be set")
					continue
				}
				if mb.bundles[d.Package][ref.Name] == nil {
					bad("bundle %q not found", ref.Name)
					continue
				}
				for _, mc := range mp.Channels {
					if mb := mc.Bundles[ref.Name]; mb != nil {
						mb.Deprecation = e.Message
					}
				}
			default:
				bad("unknown reference schema %q (want olm.package, olm.channel or olm.bundle)", ref.Schema)
			}
		}
	}
}

// maxReleaseLen is the longest release string opm accepts.
const maxReleaseLen = 20
