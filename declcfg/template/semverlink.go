package template

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/blang/semver/v4"

	"github.com/operator-catalog/olmcat/declcfg"
)

// versioned is a bundle of a semver template list with its version.
type versioned struct {
	name    string
	version semver.Version
}

// kindRank orders channel kinds as opm does: major before minor, and
// minor preferred over major when nothing else decides.
func kindRank(k StreamKind) int {
	switch k {
	case StreamMinor:
		return 2
	case StreamMajor:
		return 1
	}
	return 0
}

// ChannelName is the channel the semver template puts a bundle of
// version v of archetype a in, for channel kind k.
func ChannelName(a Archetype, k StreamKind, v semver.Version) string {
	if k == StreamMajor {
		return fmt.Sprintf("%s-v%d", a, v.Major)
	}
	return fmt.Sprintf("%s-v%d.%d", a, v.Major, v.Minor)
}

// placed is one channel entry the template generated, with what orders
// it for linking.
type placed struct {
	arch    int
	kind    StreamKind
	channel string
	index   int
	versioned
}

// highwater is a candidate default channel: scored with the archetype,
// kind and the version of the channel's first (lowest) bundle.
type highwater struct {
	arch    int
	kind    StreamKind
	version semver.Version
	name    string
}

// beats says whether h is a better default channel than o: more stable
// archetype, then higher version, then the preferred kind, then minor.
func (h highwater) beats(o highwater, pref StreamKind) bool {
	if h.arch != o.arch {
		return h.arch > o.arch
	}
	if !h.version.EQ(o.version) {
		return h.version.GT(o.version)
	}
	if h.kind != o.kind {
		if h.kind == pref {
			return true
		}
		if o.kind == pref {
			return false
		}
		return kindRank(h.kind) > kindRank(o.kind)
	}
	return false
}

// channels generates the channels of pkg from the versioned lists and
// picks the default channel.
func (s *Semver) channels(pkg string, lists map[Archetype][]versioned) ([]declcfg.Channel, string) {
	byName := map[string]*declcfg.Channel{}
	var entries []placed
	best := highwater{}
	var kinds []StreamKind
	if s.GenerateMajorChannels {
		kinds = append(kinds, StreamMajor)
	}
	if s.GenerateMinorChannels {
		kinds = append(kinds, StreamMinor)
	}
	for ai, a := range Archetypes {
		list := slices.Clone(lists[a])
		slices.SortStableFunc(list, func(x, y versioned) int { return x.version.Compare(y.version) })
		for _, b := range list {
			for _, k := range kinds {
				name := ChannelName(a, k, b.version)
				ch, ok := byName[name]
				if !ok {
					ch = &declcfg.Channel{Schema: declcfg.SchemaChannel, Name: name, Package: pkg, Entries: []declcfg.ChannelEntry{}}
					byName[name] = ch
					if hw := (highwater{arch: ai, kind: k, version: b.version, name: name}); hw.beats(best, s.DefaultChannelTypePreference) {
						best = hw
					}
				}
				ch.Entries = append(ch.Entries, declcfg.ChannelEntry{Name: b.name})
				entries = append(entries, placed{arch: ai, kind: k, channel: name, index: len(ch.Entries) - 1, versioned: b})
			}
		}
	}
	link(entries, byName)
	out := make([]declcfg.Channel, 0, len(byName))
	for _, ch := range byName {
		out = append(out, *ch)
	}
	slices.SortFunc(out, func(x, y declcfg.Channel) int { return cmp.Compare(x.Name, y.Name) })
	return out, best.name
}

// link sets the edges. Entries run by archetype, kind and version; inside
// a run of one archetype, kind and major version, the highest patch of
// each minor replaces the highest patch of the previous minor and skips
// every other earlier entry of the run. Other entries get no edges.
func link(entries []placed, byName map[string]*declcfg.Channel) {
	slices.SortStableFunc(entries, func(x, y placed) int {
		return cmp.Or(cmp.Compare(x.arch, y.arch), cmp.Compare(kindRank(x.kind), kindRank(y.kind)), x.version.Compare(y.version))
	})
	prevMax := ""
	var skips []string
	setEdges := func(p placed) {
		e := &byName[p.channel].Entries[p.index]
		e.Replaces = prevMax
		var s []string
		for _, n := range skips {
			if n != prevMax && !slices.Contains(s, n) {
				s = append(s, n)
			}
		}
		slices.Sort(s)
		if len(s) > 0 {
			e.Skips = s
		}
	}
	sameRun := func(x, y placed) bool {
		return x.arch == y.arch && x.kind == y.kind && x.version.Major == y.version.Major
	}
	for i := 1; i < len(entries); i++ {
		prev, cur := entries[i-1], entries[i]
		newMinor := prev.version.Major != cur.version.Major || prev.version.Minor != cur.version.Minor
		if !sameRun(prev, cur) || newMinor {
			setEdges(prev)
		}
		if !sameRun(prev, cur) {
			prevMax, skips = "", nil
			continue
		}
		if newMinor {
			prevMax = prev.name
		}
		skips = append(skips, prev.name)
	}
	if n := len(entries); n > 1 && sameRun(entries[n-2], entries[n-1]) {
		setEdges(entries[n-1])
	}
}
