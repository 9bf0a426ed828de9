package migrate

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/blang/semver/v4"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/jsonscan"
	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/legacy"
)

// packageResult is one converted package with everything found on the way.
type packageResult struct {
	name     string
	cfg      *declcfg.DeclarativeConfig
	repairs  []legacy.Repair
	drops    []Finding
	notes    []Finding
	problems []Finding
	counts   Counts
	// arena holds the bundle object values of cfg (see bundleObject).
	arena *[]byte
}

// converter converts one package; it is not shared between goroutines.
type converter struct {
	o     *options
	pkg   string
	res   *packageResult
	arena *[]byte
}

func (c *converter) drop(f Finding) {
	f.Package = c.pkg
	f.Hint = Hint(f.Kind)
	c.res.drops = append(c.res.drops, f)
}

func (c *converter) note(f Finding) {
	f.Package = c.pkg
	f.Hint = Hint(f.Kind)
	c.res.notes = append(c.res.notes, f)
}

func (c *converter) problem(f Finding) {
	f.Package = c.pkg
	f.Hint = Hint(f.Kind)
	c.res.problems = append(c.res.problems, f)
}

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

// dns1123Label is the package name rule of declarative configs.
var dns1123Label = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// convertPackage turns one package's legacy rows into its blobs: what
// opm's sqlite conversion produced (see MIGRATION.md for every difference)
// plus the findings. It never fails on content: content that would not
// serve is returned as problems.
func convertPackage(pd *legacy.PackageData, o *options) *packageResult {
	c := &converter{o: o, pkg: pd.Package.Name, res: &packageResult{name: pd.Package.Name}}
	c.res.repairs = append(c.res.repairs, pd.Repairs...)
	cfg := &declcfg.DeclarativeConfig{}
	c.res.cfg = cfg

	if len(c.pkg) > 63 || !dns1123Label.MatchString(c.pkg) {
		c.problem(Finding{Kind: ProblemInvalidPackageName, Field: "name", Value: c.pkg,
			Detail: "package name is not a DNS-1123 label"})
	}

	for i := range pd.Stranded {
		c.drop(Finding{Kind: DropStranded, Bundle: pd.Stranded[i].Name,
			Detail: "no channel entry names this bundle (opm dropped it without a word)"})
	}

	// Channel membership and edges, from channel_entry.
	edgesByChannel, dangling := channelEdges(pd.Entries)
	for _, e := range dangling {
		c.drop(Finding{Kind: DropDanglingEntryLink, Channel: e.Channel, Bundle: e.Bundle, Field: "replaces", Value: fmt.Sprint(e.Replaces),
			Detail: fmt.Sprintf("channel_entry row %d replaces entry_id %d, which does not exist; that edge is ignored, as opm ignored it", e.ID, e.Replaces)})
	}
	knownChannel := map[string]bool{}
	for _, ch := range pd.Channels {
		knownChannel[ch.Name] = true
	}
	var orphanChannels []string
	for name := range edgesByChannel {
		if !knownChannel[name] {
			orphanChannels = append(orphanChannels, name)
		}
	}
	sort.Strings(orphanChannels)
	for _, name := range orphanChannels {
		c.drop(Finding{Kind: DropOrphanEntries, Channel: name,
			Detail: fmt.Sprintf("%d channel_entry row(s) name channel %q, which the channel table does not have; they are ignored", countEntries(pd.Entries, name), name)})
	}

	// Bundle rows by name; a bundle is emitted when a known channel has an
	// entry for it.
	states := make(map[string]*bundleState, len(pd.Bundles))
	for i := range pd.Bundles {
		states[pd.Bundles[i].Name] = &bundleState{row: &pd.Bundles[i]}
	}
	inChannel := map[string]bool{}
	for name, members := range edgesByChannel {
		if !knownChannel[name] {
			continue
		}
		for b := range members {
			inChannel[b] = true
		}
	}
	var names []string
	for i := range pd.Bundles {
		b := &pd.Bundles[i]
		if !inChannel[b.Name] {
			c.drop(Finding{Kind: DropNoChannel, Bundle: b.Name,
				Detail: "every channel entry of this bundle names a channel the channel table does not have"})
			delete(states, b.Name)
			continue
		}
		names = append(names, b.Name)
	}
	sort.Strings(names)

	// Decide which bundles are kept: deprecated ones only on request,
	// invalid ones are problems unless dropping them was asked for.
	kept := map[string]*bundleState{}
	dropped := map[string]Kind{}
	var deprecated []string
	for _, name := range names {
		st := states[name]
		if st.row.Deprecated && !o.keepDeprecated {
			c.drop(Finding{Kind: DropDeprecated, Bundle: name,
				Detail: "the legacy index marks this bundle deprecated; it is left out, as opm did"})
			dropped[name] = DropDeprecated
			continue
		}
		c.checkBundle(st)
		if len(st.invalid) > 0 {
			if o.dropInvalidBundles {
				var why []string
				for _, f := range st.invalid {
					why = append(why, f.String())
				}
				c.drop(Finding{Kind: DropInvalidBundle, Bundle: name,
					Detail: "left out: " + strings.Join(why, "; ")})
				dropped[name] = DropInvalidBundle
				continue
			}
			for _, f := range st.invalid {
				c.problem(f)
			}
		}
		kept[name] = st
		if st.row.Deprecated {
			deprecated = append(deprecated, name)
		}
	}

	// Channels, sorted by name, with entries for kept bundles sorted by name.
	channels := append([]legacy.Channel(nil), pd.Channels...)
	sort.Slice(channels, func(i, j int) bool { return channels[i].Name < channels[j].Name })
	for _, ch := range channels {
		members := edgesByChannel[ch.Name]
		var entryNames []string
		for b := range members {
			if _, ok := kept[b]; ok {
				entryNames = append(entryNames, b)
			}
		}
		sort.Strings(entryNames)
		out := declcfg.Channel{Schema: declcfg.SchemaChannel, Name: ch.Name, Package: c.pkg, Entries: []declcfg.ChannelEntry{}}
		graph := make([]graphEntry, 0, len(entryNames))
		for _, b := range entryNames {
			e := members[b]
			entry := declcfg.ChannelEntry{Name: b, Replaces: e.replaces, SkipRange: kept[b].row.SkipRange}
			if len(e.skips) > 0 {
				entry.Skips = append([]string(nil), e.skips...)
			}
			out.Entries = append(out.Entries, entry)
			graph = append(graph, graphEntry{name: b, replaces: e.replaces, skips: e.skips})
			c.noteDangling(ch.Name, b, "replaces", []string{e.replaces}, dropped)
			c.noteDangling(ch.Name, b, "skips", e.skips, dropped)
		}
		for _, gp := range checkGraph(graph) {
			f := Finding{Kind: gp.kind, Channel: ch.Name, Detail: gp.detail}
			if len(gp.bundles) == 1 {
				f.Bundle = gp.bundles[0]
			}
			if len(dropped) > 0 {
				f.Detail += fmt.Sprintf(" (after leaving out %d bundle(s): %s)", len(dropped), nameList(sortedKeys(dropped)))
			}
			c.problem(f)
		}
		cfg.Channels = append(cfg.Channels, out)
	}

	// Package blob: default channel, icon and description from the CSV of
	// the default channel's head as the channel table names it.
	p := declcfg.Package{Schema: declcfg.SchemaPackage, Name: c.pkg, DefaultChannel: pd.Package.DefaultChannel}
	if !knownChannel[p.DefaultChannel] {
		c.problem(Finding{Kind: ProblemMissingDefaultChannel, Field: "defaultChannel", Value: p.DefaultChannel,
			Detail: "the default channel is not one of the package's channels"})
	}
	for _, ch := range pd.Channels {
		if _, ok := states[ch.Head]; !ok && !bundleRowExists(pd, ch.Head) {
			c.note(Finding{Kind: NoteStaleChannelHead, Channel: ch.Name, Field: "head_operatorbundle_name", Value: ch.Head,
				Detail: "the channel table names a head bundle that has no operatorbundle row; the channel's graph is taken from channel_entry"})
		}
		if ch.Name == p.DefaultChannel {
			c.packageMeta(&p, pd, ch.Head)
		}
	}
	cfg.Packages = []declcfg.Package{p}

	// Bundles, sorted by name, their manifests encoded into one arena.
	if o.arenas {
		size := 0
		for _, st := range kept {
			for _, obj := range st.row.Objects {
				size += bundleObjectLen(obj)
			}
		}
		if size > 0 {
			c.arena = getArena(size)
			c.res.arena = c.arena
		}
	}
	versions := map[string][]string{}
	for _, name := range names {
		st, ok := kept[name]
		if !ok {
			continue
		}
		b := c.convertBundle(st)
		cfg.Bundles = append(cfg.Bundles, b)
		if st.row.Version != "" {
			versions[st.row.Version] = append(versions[st.row.Version], name)
		}
	}
	var dupVersions []string
	for v, bs := range versions {
		if len(bs) > 1 {
			dupVersions = append(dupVersions, v)
		}
	}
	sort.Strings(dupVersions)
	for _, v := range dupVersions {
		c.problem(Finding{Kind: ProblemDuplicateVersion, Field: "version", Value: v,
			Detail: "bundles " + strings.Join(versions[v], ", ") + " have the same version"})
	}

	if len(deprecated) > 0 {
		d := declcfg.Deprecation{Schema: declcfg.SchemaDeprecations, Package: c.pkg}
		for _, name := range deprecated {
			d.Entries = append(d.Entries, declcfg.DeprecationEntry{
				Reference: declcfg.PackageScopedReference{Schema: declcfg.SchemaBundle, Name: name},
				Message:   fmt.Sprintf("bundle %s was deprecated in the legacy index", name),
			})
		}
		cfg.Deprecations = []declcfg.Deprecation{d}
	}
	c.res.counts.Packages = len(cfg.Packages)
	c.res.counts.Channels = len(cfg.Channels)
	c.res.counts.Bundles = len(cfg.Bundles)
	c.res.counts.Deprecations = len(cfg.Deprecations)
	return c.res
}

func bundleRowExists(pd *legacy.PackageData, name string) bool {
	for i := range pd.Bundles {
		if pd.Bundles[i].Name == name {
			return true
		}
	}
	for i := range pd.Stranded {
		if pd.Stranded[i].Name == name {
			return true
		}
	}
	return false
}

func countEntries(entries []legacy.ChannelEntry, channel string) int {
	n := 0
	for _, e := range entries {
		if e.Channel == channel {
			n++
		}
	}
	return n
}

// sortedKeys are m's keys in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// noteDangling records edges that name a bundle this migration dropped;
// edges to bundles the database never had are opm's behaviour and normal.
func (c *converter) noteDangling(channel, bundle, field string, targets []string, dropped map[string]Kind) {
	for _, t := range targets {
		if kind, ok := dropped[t]; ok && t != "" {
			c.note(Finding{Kind: NoteDanglingEdge, Channel: channel, Bundle: bundle, Field: field, Value: t,
				Detail: fmt.Sprintf("the entry's %s names %s, which was left out (%s)", field, t, kind)})
		}
	}
}

// checkBundle finds what would make the bundle unservable and records it
// in st.invalid. It also locates and parses the bundle's CSV.
func (c *converter) checkBundle(st *bundleState) {
	b := st.row
	bad := func(kind Kind, field, value, detail string) {
		st.invalid = append(st.invalid, Finding{Kind: kind, Package: c.pkg, Bundle: b.Name, Field: field, Value: value, Detail: detail, Hint: Hint(kind)})
	}
	for i, obj := range b.Objects {
		// Manifests are written as they are stored; each must be valid
		// JSON for a client to apply it.
		if !jsonscan.Valid(obj) {
			bad(ProblemInvalidManifest, fmt.Sprintf("objects[%d]", i), "", fmt.Sprintf("operatorbundle row %q, bundle column: manifest %d is not valid JSON", b.Name, i))
			continue
		}
		kind, err := manifest.Kind(obj)
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
	if st.csvJSON != nil {
		if err := c.readCSV(st); err != nil {
			bad(ProblemInvalidCSV, "csv", "", fmt.Sprintf("operatorbundle row %q: the ClusterServiceVersion does not parse: %v", b.Name, err))
		}
	}
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
		var v declcfg.GVKValue
		err = json.Unmarshal([]byte(value), &v)
	case declcfg.PropertyPackage:
		var v declcfg.PackageValue
		err = json.Unmarshal([]byte(value), &v)
	case declcfg.PropertyLabel:
		var v declcfg.LabelValue
		err = json.Unmarshal([]byte(value), &v)
	default:
		if !json.Valid([]byte(value)) {
			err = fmt.Errorf("not valid JSON")
		}
	}
	return err
}

// packageMeta fills the icon and description from the CSV of the default
// channel's head: opm took the icon from the csv column of that row.
func (c *converter) packageMeta(p *declcfg.Package, pd *legacy.PackageData, head string) {
	var row *legacy.Bundle
	for i := range pd.Bundles {
		if pd.Bundles[i].Name == head {
			row = &pd.Bundles[i]
		}
	}
	if row == nil {
		return
	}
	data := row.CSV
	if data == nil {
		if i := manifest.FindCSV(row.Objects); i >= 0 {
			data = row.Objects[i]
		}
	}
	if data == nil {
		return
	}
	// The bundle's own checks report an unparsable CSV.
	csv, err := manifest.ParseCSV(data)
	if err != nil {
		return
	}
	description, err := csv.Description()
	if err != nil {
		return
	}
	icons, err := csv.Icons()
	if err != nil {
		return
	}
	p.Description = description
	if len(icons) == 0 {
		return
	}
	icon := icons[0]
	raw, err := base64.StdEncoding.DecodeString(icon.Data)
	if err != nil {
		raw, err = base64.StdEncoding.DecodeString(strings.ReplaceAll(icon.Data, " ", ""))
	}
	if err != nil {
		c.drop(Finding{Kind: DropIcon, Bundle: head, Field: "icon",
			Detail: fmt.Sprintf("spec.icon[0].base64data of the default channel head's CSV is not base64 (%v); the package has no icon, as with opm", err)})
		return
	}
	if len(raw) == 0 {
		// opm wrote no icon for an empty base64data.
		return
	}
	p.Icon = &declcfg.Icon{Data: raw, MediaType: icon.MediaType}
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
			var v declcfg.GVKValue
			if err := json.Unmarshal([]byte(p.Value), &v); err == nil {
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
			var v declcfg.GVKValue
			if err := json.Unmarshal([]byte(d.Value), &v); err == nil {
				required[v] = true
			}
		case declcfg.PropertyPackage:
			var v declcfg.PackageValue
			if err := json.Unmarshal([]byte(d.Value), &v); err == nil {
				out = append(out, declcfg.MustProperty(declcfg.PropertyPackageRequired,
					declcfg.PackageRequiredValue{PackageName: v.PackageName, VersionRange: v.Version}))
			}
		case declcfg.PropertyLabel:
			var v declcfg.LabelValue
			if err := json.Unmarshal([]byte(d.Value), &v); err == nil {
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
