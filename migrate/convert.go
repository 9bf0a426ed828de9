package migrate

import (
	"encoding/base64"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg"
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
	o *options
	// arenas: bundle object values go to a recycled arena (see
	// bundleObject), released by the caller once the package is handled.
	arenas bool
	pkg    string
	pd     *legacy.PackageData
	res    *packageResult
	arena  *[]byte

	// edgesByChannel are the members of each channel with their edges,
	// from channel_entry; knownChannel the channels the channel table has.
	edgesByChannel map[string]map[string]*edges
	knownChannel   map[string]bool
	// states are the bundle rows in a known channel by name, names those
	// names sorted.
	states map[string]*bundleState
	names  []string
	// kept are the bundles written, dropped why the others were not;
	// deprecated the kept ones the index deprecated.
	kept       map[string]*bundleState
	dropped    map[string]Kind
	deprecated []string
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

// dns1123Label is the package name rule of declarative configs.
var dns1123Label = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// convertPackage turns one package's legacy rows into its blobs: what
// opm's sqlite conversion produced (see MIGRATION.md for every difference)
// plus the findings. It never fails on content: content that would not
// serve is returned as problems.
func convertPackage(pd *legacy.PackageData, o *options, arenas bool) *packageResult {
	c := &converter{o: o, arenas: arenas, pkg: pd.Package.Name, pd: pd, res: &packageResult{name: pd.Package.Name}}
	c.res.repairs = append(c.res.repairs, pd.Repairs...)
	c.res.cfg = &declcfg.DeclarativeConfig{}
	c.checkPackage()
	c.bundleRows()
	c.keepBundles()
	c.channelBlobs()
	c.packageBlob()
	c.bundleBlobs()
	c.deprecationBlob()
	cfg := c.res.cfg
	c.res.counts.Packages = len(cfg.Packages)
	c.res.counts.Channels = len(cfg.Channels)
	c.res.counts.Bundles = len(cfg.Bundles)
	c.res.counts.Deprecations = len(cfg.Deprecations)
	return c.res
}

// checkPackage checks the package name and reads channel membership and
// edges from channel_entry: stranded bundles, dangling links and entries
// of channels the channel table lacks are left out.
func (c *converter) checkPackage() {
	if len(c.pkg) > 63 || !dns1123Label.MatchString(c.pkg) {
		c.problem(Finding{Kind: ProblemInvalidPackageName, Field: "name", Value: c.pkg,
			Detail: "package name is not a DNS-1123 label"})
	}

	for i := range c.pd.Stranded {
		c.drop(Finding{Kind: DropStranded, Bundle: c.pd.Stranded[i].Name,
			Detail: "no channel entry names this bundle (opm dropped it without a word)"})
	}

	// Channel membership and edges, from channel_entry.
	var dangling []legacy.ChannelEntry
	c.edgesByChannel, dangling = channelEdges(c.pd.Entries, c.pd.TipDepth)
	for _, e := range dangling {
		c.drop(Finding{Kind: DropDanglingEntryLink, Channel: e.Channel, Bundle: e.Bundle, Field: "replaces", Value: fmt.Sprint(e.Replaces),
			Detail: fmt.Sprintf("channel_entry row %d replaces entry_id %d, which does not exist; that edge is ignored, as opm ignored it", e.ID, e.Replaces)})
	}
	c.knownChannel = map[string]bool{}
	for _, ch := range c.pd.Channels {
		c.knownChannel[ch.Name] = true
	}
	var orphanChannels []string
	for name := range c.edgesByChannel {
		if !c.knownChannel[name] {
			orphanChannels = append(orphanChannels, name)
		}
	}
	sort.Strings(orphanChannels)
	for _, name := range orphanChannels {
		c.drop(Finding{Kind: DropOrphanEntries, Channel: name,
			Detail: fmt.Sprintf("%d channel_entry row(s) name channel %q, which the channel table does not have; they are ignored", countEntries(c.pd.Entries, name), name)})
	}
}

// bundleRows indexes the bundle rows by name; a bundle is emitted when a
// known channel has an entry for it.
func (c *converter) bundleRows() {
	c.states = make(map[string]*bundleState, len(c.pd.Bundles))
	for i := range c.pd.Bundles {
		c.states[c.pd.Bundles[i].Name] = &bundleState{row: &c.pd.Bundles[i]}
	}
	inChannel := map[string]bool{}
	for name, members := range c.edgesByChannel {
		if !c.knownChannel[name] {
			continue
		}
		for b := range members {
			inChannel[b] = true
		}
	}
	for i := range c.pd.Bundles {
		b := &c.pd.Bundles[i]
		if !inChannel[b.Name] {
			c.drop(Finding{Kind: DropNoChannel, Bundle: b.Name,
				Detail: "every channel entry of this bundle names a channel the channel table does not have"})
			delete(c.states, b.Name)
			continue
		}
		c.names = append(c.names, b.Name)
	}
	sort.Strings(c.names)
}

// keepBundles decides which bundles are kept: deprecated ones only on
// request, invalid ones are problems unless dropping them was asked for.
func (c *converter) keepBundles() {
	c.kept = map[string]*bundleState{}
	c.dropped = map[string]Kind{}
	for _, name := range c.names {
		st := c.states[name]
		if st.row.Deprecated && !c.o.keepDeprecated {
			c.drop(Finding{Kind: DropDeprecated, Bundle: name,
				Detail: "the legacy index marks this bundle deprecated; it is left out, as opm did"})
			c.dropped[name] = DropDeprecated
			continue
		}
		c.checkBundle(st)
		if len(st.invalid) > 0 {
			if c.o.dropInvalidBundles {
				var why []string
				for _, f := range st.invalid {
					why = append(why, f.String())
				}
				c.drop(Finding{Kind: DropInvalidBundle, Bundle: name,
					Detail: "left out: " + strings.Join(why, "; ")})
				c.dropped[name] = DropInvalidBundle
				continue
			}
			for _, f := range st.invalid {
				c.problem(f)
			}
		}
		c.kept[name] = st
		if st.row.Deprecated {
			c.deprecated = append(c.deprecated, name)
		}
	}
}

// channelBlobs writes the channels, sorted by name, with entries for kept
// bundles sorted by name, and checks each channel's graph.
func (c *converter) channelBlobs() {
	channels := append([]legacy.Channel(nil), c.pd.Channels...)
	sort.Slice(channels, func(i, j int) bool { return channels[i].Name < channels[j].Name })
	for _, ch := range channels {
		members := c.edgesByChannel[ch.Name]
		var entryNames []string
		for b := range members {
			if _, ok := c.kept[b]; ok {
				entryNames = append(entryNames, b)
			}
		}
		sort.Strings(entryNames)
		out := declcfg.Channel{Schema: declcfg.SchemaChannel, Name: ch.Name, Package: c.pkg, Entries: []declcfg.ChannelEntry{}}
		graph := make([]graphEntry, 0, len(entryNames))
		for _, b := range entryNames {
			e := members[b]
			entry := declcfg.ChannelEntry{Name: b, Replaces: e.replaces, SkipRange: c.kept[b].row.SkipRange}
			if len(e.skips) > 0 {
				entry.Skips = append([]string(nil), e.skips...)
			}
			out.Entries = append(out.Entries, entry)
			graph = append(graph, graphEntry{name: b, replaces: e.replaces, skips: e.skips})
			c.noteDangling(ch.Name, b, "replaces", []string{e.replaces}, c.dropped)
			c.noteDangling(ch.Name, b, "skips", e.skips, c.dropped)
		}
		for _, gp := range checkGraph(graph) {
			f := Finding{Kind: gp.kind, Channel: ch.Name, Detail: gp.detail}
			if len(gp.bundles) == 1 {
				f.Bundle = gp.bundles[0]
			}
			if len(c.dropped) > 0 {
				f.Detail += fmt.Sprintf(" (after leaving out %d bundle(s): %s)", len(c.dropped), nameList(sortedKeys(c.dropped)))
			}
			c.problem(f)
		}
		c.res.cfg.Channels = append(c.res.cfg.Channels, out)
	}
}

// packageBlob writes the package blob: default channel, icon and
// description from the CSV of the default channel's head as the channel
// table names it.
func (c *converter) packageBlob() {
	p := declcfg.Package{Schema: declcfg.SchemaPackage, Name: c.pkg, DefaultChannel: c.pd.Package.DefaultChannel}
	if !c.knownChannel[p.DefaultChannel] {
		c.problem(Finding{Kind: ProblemMissingDefaultChannel, Field: "defaultChannel", Value: p.DefaultChannel,
			Detail: "the default channel is not one of the package's channels"})
	}
	for _, ch := range c.pd.Channels {
		if _, ok := c.states[ch.Head]; !ok && !bundleRowExists(c.pd, ch.Head) {
			c.note(Finding{Kind: NoteStaleChannelHead, Channel: ch.Name, Field: "head_operatorbundle_name", Value: ch.Head,
				Detail: "the channel table names a head bundle that has no operatorbundle row; the channel's graph is taken from channel_entry"})
		}
		if ch.Name == p.DefaultChannel {
			c.packageMeta(&p, c.pd, ch.Head)
		}
	}
	c.res.cfg.Packages = []declcfg.Package{p}
}

// bundleBlobs writes the kept bundles, sorted by name, their manifests
// encoded into one arena, and reports duplicate versions.
func (c *converter) bundleBlobs() {
	if c.arenas {
		size := 0
		for _, st := range c.kept {
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
	for _, name := range c.names {
		st, ok := c.kept[name]
		if !ok {
			continue
		}
		b := c.convertBundle(st)
		c.res.cfg.Bundles = append(c.res.cfg.Bundles, b)
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
}

// deprecationBlob lists the kept deprecated bundles in an olm.deprecations
// blob.
func (c *converter) deprecationBlob() {
	if len(c.deprecated) > 0 {
		d := declcfg.Deprecation{Schema: declcfg.SchemaDeprecations, Package: c.pkg}
		for _, name := range c.deprecated {
			d.Entries = append(d.Entries, declcfg.DeprecationEntry{
				Reference: declcfg.PackageScopedReference{Schema: declcfg.SchemaBundle, Name: name},
				Message:   fmt.Sprintf("bundle %s was deprecated in the legacy index", name),
			})
		}
		c.res.cfg.Deprecations = []declcfg.Deprecation{d}
	}
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
	// The bundle's own checks report the unparsable CSV as a problem;
	// what the package loses by it is reported here.
	lost := func(err error) {
		c.drop(Finding{Kind: DropPackageMeta, Bundle: head, Field: "csv",
			Detail: fmt.Sprintf("the package description and icon come from the default channel head's CSV, which cannot be read (%v); the package has neither", err)})
	}
	if len(row.Unreadable) > 0 && row.CSV == nil && data == nil {
		lost(row.Unreadable[0].Err)
		return
	}
	csv, err := manifest.ParseCSV(data)
	if err != nil {
		lost(err)
		return
	}
	description, err := csv.Description()
	if err != nil {
		lost(err)
		return
	}
	icons, err := csv.Icons()
	if err != nil {
		lost(err)
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
