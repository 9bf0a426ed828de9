package declcfg

import (
	"encoding/json"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/blang/semver/v4"
	"github.com/distribution/reference"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Problem is one validation finding, naming the blob it is about.
type Problem struct {
	// File is the blob's origin ("path#index"), empty for built blobs.
	File string `json:"file,omitempty"`
	// Schema is the schema of the blob the problem is about.
	Schema string `json:"schema,omitempty"`
	// Package is the blob's package (the name, for olm.package blobs).
	Package string `json:"package,omitempty"`
	// Name is the blob's name (channel or bundle name), if any.
	Name string `json:"name,omitempty"`
	// Message says what is wrong.
	Message string `json:"message"`

	origin Origin // for ordering the report by file and position
}

// String renders the problem as "file: schema package/name: message",
// leaving out the parts that are empty.
func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
		b.WriteString(": ")
	}
	subject := p.Package
	switch {
	case subject != "" && p.Name != "":
		subject += "/" + p.Name
	case subject == "":
		subject = p.Name
	}
	if p.Schema != "" {
		b.WriteString(p.Schema)
		if subject != "" {
			b.WriteString(" ")
		}
	}
	if subject != "" {
		b.WriteString(subject)
	}
	if p.Schema != "" || subject != "" {
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// ValidationError lists every problem found in one validation run.
type ValidationError struct {
	Problems []Problem
}

// Error lists all problems, one per line.
func (e *ValidationError) Error() string {
	lines := make([]string, 0, len(e.Problems)+1)
	n := len(e.Problems)
	if n == 1 {
		lines = append(lines, "invalid catalog: 1 problem:")
	} else {
		lines = append(lines, fmt.Sprintf("invalid catalog: %d problems:", n))
	}
	for _, p := range e.Problems {
		lines = append(lines, "  "+p.String())
	}
	return strings.Join(lines, "\n")
}

// problems collects findings.
type problems []Problem

func (ps *problems) add(o Origin, schema, pkg, name, format string, args ...any) {
	*ps = append(*ps, Problem{File: o.String(), Schema: schema, Package: pkg, Name: name, Message: fmt.Sprintf(format, args...), origin: o})
}

func (ps problems) err() error {
	if len(ps) == 0 {
		return nil
	}
	return &ValidationError{Problems: ps}
}

// ConvertToModel validates cfg and links it into a Model. It checks every
// blob and the graph of every channel and reports all problems at once as
// a *ValidationError; the Model is returned only when there is none.
func ConvertToModel(cfg *DeclarativeConfig) (*Model, error) {
	var ps problems
	m := &Model{Packages: map[string]*ModelPackage{}}

	// Packages.
	pkgBlobs := map[string]*Package{}
	for i := range cfg.Packages {
		p := &cfg.Packages[i]
		if p.Name == "" {
			ps.add(p.Origin, SchemaPackage, "", "", "package name must be set")
			continue
		}
		if prev, dup := pkgBlobs[p.Name]; dup {
			ps.add(p.Origin, SchemaPackage, p.Name, "", "duplicate package (first defined at %s)", originOrMemory(prev.Origin))
			continue
		}
		if errs := validation.IsDNS1123Label(p.Name); len(errs) > 0 {
			ps.add(p.Origin, SchemaPackage, p.Name, "", "invalid package name: %s", strings.Join(errs, "; "))
		}
		pkgBlobs[p.Name] = p
		m.Packages[p.Name] = &ModelPackage{
			Name:        p.Name,
			Description: p.Description,
			Icon:        p.Icon,
			Channels:    map[string]*ModelChannel{},
			Origin:      p.Origin,
		}
	}

	// Channels.
	type chanEntries struct {
		ch      *ModelChannel
		entries []ChannelEntry
	}
	var linked []chanEntries
	for i := range cfg.Channels {
		c := &cfg.Channels[i]
		if c.Package == "" {
			ps.add(c.Origin, SchemaChannel, "", c.Name, "channel package must be set")
			continue
		}
		mp := m.Packages[c.Package]
		if mp == nil {
			ps.add(c.Origin, SchemaChannel, c.Package, c.Name, "package %q not found", c.Package)
			continue
		}
		if c.Name == "" {
			ps.add(c.Origin, SchemaChannel, c.Package, "", "channel name must be set")
			continue
		}
		if prev, dup := mp.Channels[c.Name]; dup {
			ps.add(c.Origin, SchemaChannel, c.Package, c.Name, "duplicate channel (first defined at %s)", originOrMemory(prev.Origin))
			continue
		}
		mc := &ModelChannel{Package: mp, Name: c.Name, Bundles: map[string]*ModelBundle{}, Origin: c.Origin}
		mp.Channels[c.Name] = mc
		seen := map[string]bool{}
		for _, e := range c.Entries {
			if e.Name == "" {
				ps.add(c.Origin, SchemaChannel, c.Package, c.Name, "entry name must be set")
				continue
			}
			if seen[e.Name] {
				ps.add(c.Origin, SchemaChannel, c.Package, c.Name, "duplicate entry %q", e.Name)
				continue
			}
			seen[e.Name] = true
		}
		linked = append(linked, chanEntries{ch: mc, entries: c.Entries})
	}

	// Default channels.
	for i := range cfg.Packages {
		p := &cfg.Packages[i]
		name := p.Name
		if p.Name == "" || pkgBlobs[name] != p {
			continue
		}
		mp := m.Packages[name]
		switch ch := mp.Channels[p.DefaultChannel]; {
		case p.DefaultChannel == "":
			ps.add(p.Origin, SchemaPackage, name, "", "default channel must be set")
		case ch == nil:
			ps.add(p.Origin, SchemaPackage, name, "", "default channel %q not found in the package's channels", p.DefaultChannel)
		default:
			mp.DefaultChannel = ch
		}
	}

	// Bundles: identity checks in order, then the per-bundle content
	// checks (independent of each other, and the costly part: property
	// schemas, semver, image references) in parallel, merged back in blob
	// order so the report is deterministic.
	type bundleInfo struct {
		b        *Bundle
		version  semver.Version
		used     bool
		problems problems
	}
	bundles := map[string]map[string]*bundleInfo{}
	var bundleOrder []*bundleInfo
	pre := make([]problems, len(cfg.Bundles))
	infos := make([]*bundleInfo, len(cfg.Bundles))
	for i := range cfg.Bundles {
		b := &cfg.Bundles[i]
		if b.Name == "" {
			pre[i].add(b.Origin, SchemaBundle, b.Package, "", "bundle name must be set")
			continue
		}
		if b.Package == "" {
			pre[i].add(b.Origin, SchemaBundle, "", b.Name, "bundle package must be set")
			continue
		}
		if m.Packages[b.Package] == nil {
			pre[i].add(b.Origin, SchemaBundle, b.Package, b.Name, "package %q not found", b.Package)
			continue
		}
		byName := bundles[b.Package]
		if byName == nil {
			byName = map[string]*bundleInfo{}
			bundles[b.Package] = byName
		}
		if prev, dup := byName[b.Name]; dup {
			pre[i].add(b.Origin, SchemaBundle, b.Package, b.Name, "duplicate bundle (first defined at %s)", originOrMemory(prev.b.Origin))
			continue
		}
		info := &bundleInfo{b: b}
		byName[b.Name] = info
		infos[i] = info
		bundleOrder = append(bundleOrder, info)
	}
	parallelFor(len(bundleOrder), func(i int) {
		info := bundleOrder[i]
		b := info.b
		info.version = checkBundleBlob(&info.problems, b)
		checkBundleRules(&info.problems, b.Origin, b.Package, b.Name, b.Image, b.Properties, len(b.Objects))
	})
	for i := range cfg.Bundles {
		ps = append(ps, pre[i]...)
		if infos[i] != nil {
			ps = append(ps, infos[i].problems...)
			infos[i].problems = nil
		}
	}

	// Channel entries -> bundles.
	for _, le := range linked {
		mc := le.ch
		for _, e := range le.entries {
			if e.Name == "" || mc.Bundles[e.Name] != nil {
				continue
			}
			info := bundles[mc.Package.Name][e.Name]
			if info == nil {
				ps.add(mc.Origin, SchemaChannel, mc.Package.Name, mc.Name, "entry %q: bundle not found", e.Name)
				continue
			}
			info.used = true
			b := info.b
			mc.Bundles[e.Name] = &ModelBundle{
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
	for _, info := range bundleOrder {
		if !info.used {
			ps.add(info.b.Origin, SchemaBundle, info.b.Package, info.b.Name, "bundle not found in any channel entries")
		}
	}

	// Deprecations.
	seenDep := map[string]Origin{}
	for i := range cfg.Deprecations {
		d := &cfg.Deprecations[i]
		if d.Package == "" {
			ps.add(d.Origin, SchemaDeprecations, "", "", "deprecation package must be set")
			continue
		}
		mp := m.Packages[d.Package]
		if mp == nil {
			ps.add(d.Origin, SchemaDeprecations, d.Package, "", "package %q not found", d.Package)
			continue
		}
		if prev, dup := seenDep[d.Package]; dup {
			ps.add(d.Origin, SchemaDeprecations, d.Package, "", "duplicate olm.deprecations blob for the package (first defined at %s)", originOrMemory(prev))
			continue
		}
		seenDep[d.Package] = d.Origin
		refs := map[PackageScopedReference]bool{}
		for k, e := range d.Entries {
			ref := e.Reference
			bad := func(format string, args ...any) {
				ps.add(d.Origin, SchemaDeprecations, d.Package, "", "entry #%d: "+format, append([]any{k}, args...)...)
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
			case SchemaPackage:
				if ref.Name != "" {
					bad("olm.package reference must not have a name (got %q)", ref.Name)
					continue
				}
				mp.Deprecation = e.Message
			case SchemaChannel:
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
			case SchemaBundle:
				if ref.Name == "" {
					bad("olm.bundle reference name must be set")
					continue
				}
				if bundles[d.Package][ref.Name] == nil {
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

	ps = append(ps, m.validate(false)...)
	// Report by file and position, so that all problems of a blob are
	// together; the stable sort keeps the rule order within a blob.
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i].origin, ps[j].origin
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Index < b.Index
	})
	if err := ps.err(); err != nil {
		return nil, err
	}
	return m, nil
}

func originOrMemory(o Origin) string {
	if s := o.String(); s != "" {
		return s
	}
	return "an in-memory blob"
}

// checkBundleBlob applies the rules that need the olm.bundle blob itself:
// properties match their schema, the olm.package property names the
// bundle's package and a semver version, image references parse. It
// returns the parsed version (zero if it does not parse).
func checkBundleBlob(ps *problems, b *Bundle) semver.Version {
	var version semver.Version
	add := func(format string, args ...any) {
		ps.add(b.Origin, SchemaBundle, b.Package, b.Name, format, args...)
	}
	for i, p := range b.Properties {
		if p.Type == "" {
			add("property #%d: type must be set", i)
			continue
		}
		if err := checkPropertyValue(p); err != nil {
			add("property #%d (%s): %v", i, p.Type, err)
			continue
		}
		if p.Type != PropertyPackage {
			continue
		}
		var v PackageValue
		_ = json.Unmarshal(p.Value, &v) // checked by checkPropertyValue
		if v.PackageName != b.Package {
			add("olm.package property packageName %q does not match the bundle's package %q", v.PackageName, b.Package)
		}
		ver, err := semver.Parse(v.Version)
		if err != nil {
			add("invalid version %q in olm.package property: %v", v.Version, err)
			continue
		}
		version = ver
		if v.Release != "" {
			checkRelease(add, b, v, ver)
		}
	}
	if b.Image != "" {
		if _, err := reference.ParseNormalizedNamed(b.Image); err != nil {
			add("invalid image %q: %v", b.Image, err)
		}
	}
	for _, ri := range b.RelatedImages {
		if ri.Image == "" {
			continue
		}
		if _, err := reference.ParseNormalizedNamed(ri.Image); err != nil {
			add("invalid related image %q (name %q): %v", ri.Image, ri.Name, err)
		}
	}
	return version
}

// maxReleaseLen is the longest release string opm accepts.
const maxReleaseLen = 20

// checkRelease applies the rules of the optional olm.package release: at
// most 20 characters of dot-separated pre-release identifiers, no build
// metadata in the version, and a bundle name of <package>-v<version>-<release>.
func checkRelease(add func(string, ...any), b *Bundle, v PackageValue, ver semver.Version) {
	if len(v.Release) > maxReleaseLen {
		add("invalid release %q in olm.package property: longer than %d characters", v.Release, maxReleaseLen)
	} else {
		for _, id := range strings.Split(v.Release, ".") {
			if _, err := semver.NewPRVersion(id); err != nil {
				add("invalid release %q in olm.package property: %v", v.Release, err)
				break
			}
		}
	}
	if len(ver.Build) > 0 {
		add("version %q has build metadata and a release %q: only one of them is allowed", v.Version, v.Release)
	}
	if want := b.Package + "-v" + v.Version + "-" + v.Release; b.Name != want {
		add("bundle name must be %q for a bundle with release %q", want, v.Release)
	}
}

// releaseOf returns the release of a bundle's olm.package property.
func releaseOf(props []Property) string {
	for _, p := range props {
		if p.Type != PropertyPackage {
			continue
		}
		var v PackageValue
		if json.Unmarshal(p.Value, &v) == nil {
			return v.Release
		}
	}
	return ""
}

// checkPropertyValue checks that a property value is JSON and, for the
// well-known types, that it decodes into the type's value.
func checkPropertyValue(p Property) error {
	invalid := func() error { return fmt.Errorf("value is not valid JSON: %s", truncate(p.Value, 60)) }
	var dst any
	switch p.Type {
	case PropertyPackage:
		dst = &PackageValue{}
	case PropertyPackageRequired:
		dst = &PackageRequiredValue{}
	case PropertyGVK, PropertyGVKRequired:
		dst = &GVKValue{}
	case PropertyLabel, PropertyLabelRequired:
		dst = &LabelValue{}
	case PropertyBundleObject:
		if text := inlineBase64(p.Value); text != nil && validStdBase64(text) {
			return nil // the common inline form: no need to decode the manifest again
		}
		dst = &BundleObjectValue{}
	case PropertyCSVMetadata:
		dst = &CSVMetadataValue{}
	case PropertyConstraint:
		dst = &map[string]json.RawMessage{}
	default:
		if len(p.Value) == 0 || !json.Valid(p.Value) {
			return invalid()
		}
		return nil
	}
	// Unmarshal checks the syntax as it goes; only on failure is it worth
	// telling bad JSON from a schema mismatch.
	if err := json.Unmarshal(p.Value, dst); err != nil {
		if len(p.Value) == 0 || !json.Valid(p.Value) {
			return invalid()
		}
		return fmt.Errorf("value does not match the %s schema: %v", p.Type, err)
	}
	return nil
}

// checkBundleRules applies the per-bundle rules that Model.Validate also
// applies: exactly one olm.package property, image or objects present.
func checkBundleRules(ps *problems, o Origin, pkg, name, image string, props []Property, objects int) {
	n := 0
	for _, p := range props {
		if p.Type == PropertyPackage {
			n++
		}
	}
	if n != 1 {
		ps.add(o, SchemaBundle, pkg, name, "must have exactly one olm.package property, found %d", n)
	}
	if image == "" && objects == 0 {
		ps.add(o, SchemaBundle, pkg, name, "bundle image must be set (or bundle objects present)")
	}
}

// Validate checks the model's graph rules: every package has channels and
// a default channel among them and no two bundles with the same version;
// every channel has bundles, exactly one head, no cycle in its replaces
// chain and no stranded bundle; every bundle has a name, exactly one
// olm.package property, an image or objects, no empty skips and a
// parseable skipRange. All problems are returned as a *ValidationError.
func (m *Model) Validate() error {
	return problems(m.validate(true)).err()
}

// validate runs the model rules. full adds the rules ConvertToModel
// already checks on the blobs (bundle rules, default channel presence), so
// that a model built from another source is checked completely.
func (m *Model) validate(full bool) problems {
	var ps problems
	for _, pname := range sortedKeys(m.Packages) {
		mp := m.Packages[pname]
		if mp.Name == "" {
			ps.add(mp.Origin, SchemaPackage, "", "", "package name must be set")
		}
		if len(mp.Channels) == 0 {
			ps.add(mp.Origin, SchemaPackage, pname, "", "package must have at least one channel")
		}
		if full {
			switch {
			case mp.DefaultChannel == nil:
				ps.add(mp.Origin, SchemaPackage, pname, "", "default channel must be set")
			case mp.Channels[mp.DefaultChannel.Name] != mp.DefaultChannel:
				ps.add(mp.Origin, SchemaPackage, pname, "", "default channel %q not found in the package's channels", mp.DefaultChannel.Name)
			}
		}

		// One entry per bundle name, from the first channel (by name) that
		// holds it, for the per-bundle rules.
		unique := map[string]*ModelBundle{}
		for _, cname := range sortedKeys(mp.Channels) {
			mc := mp.Channels[cname]
			if mc.Package != mp {
				ps.add(mc.Origin, SchemaChannel, pname, cname, "channel is not linked to its package")
			}
			ps = append(ps, validateChannel(mc, pname, cname)...)
			for _, bname := range sortedKeys(mc.Bundles) {
				if _, ok := unique[bname]; !ok {
					unique[bname] = mc.Bundles[bname]
				}
			}
		}

		byVersion := map[string][]string{}
		for _, bname := range sortedKeys(unique) {
			b := unique[bname]
			if full {
				if b.Name == "" {
					ps.add(b.Origin, SchemaBundle, pname, "", "bundle name must be set")
				}
				checkBundleRules(&ps, b.Origin, pname, bname, b.Image, b.Properties, len(b.Objects))
			}
			if b.Version.Equals(semver.Version{}) && !hasZeroVersion(b) {
				continue // unparsed version: reported elsewhere
			}
			v := b.Version.String()
			if r := releaseOf(b.Properties); r != "" {
				v += " release " + r
			}
			byVersion[v] = append(byVersion[v], bname)
		}
		for _, v := range sortedKeys(byVersion) {
			if names := byVersion[v]; len(names) > 1 {
				ps.add(mp.Origin, SchemaPackage, pname, "", "duplicate versions found in bundles: %s: %s", v, strings.Join(names, ", "))
			}
		}
	}
	return ps
}

// hasZeroVersion says whether a bundle's olm.package property really is
// version 0.0.0 (rather than missing or unparseable).
func hasZeroVersion(b *ModelBundle) bool {
	for _, p := range b.Properties {
		if p.Type != PropertyPackage {
			continue
		}
		var v PackageValue
		if json.Unmarshal(p.Value, &v) == nil {
			if ver, err := semver.Parse(v.Version); err == nil && ver.Equals(semver.Version{}) {
				return true
			}
		}
	}
	return false
}

// validateChannel checks one channel's graph and edges.
func validateChannel(mc *ModelChannel, pname, cname string) problems {
	var ps problems
	add := func(format string, args ...any) {
		ps.add(mc.Origin, SchemaChannel, pname, cname, format, args...)
	}
	if cname == "" {
		add("channel name must be set")
	}
	if len(mc.Bundles) == 0 {
		add("channel must contain at least one bundle")
		return ps
	}
	for _, n := range sortedKeys(mc.Bundles) {
		if b := mc.Bundles[n]; b.Channel != nil && b.Channel != mc {
			add("bundle %q is not linked to its channel", n)
		}
	}
	for _, f := range AnalyzeChannel(mc.graphEntries()).Findings {
		if !f.Warning {
			add("%s", f.Message)
		}
	}
	return ps
}

// parallelFor calls fn(i) for every i in [0, n) on GOMAXPROCS goroutines.
func parallelFor(n int, fn func(i int)) {
	workers := runtime.GOMAXPROCS(0)
	if workers > n {
		workers = n
	}
	if workers <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// sortedKeys are m's keys in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
