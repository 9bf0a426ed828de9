package parity

import (
	"fmt"
	"maps"
	"reflect"

	"github.com/operator-catalog/olmcat/registry/api"
)

func (d *differ) bundleThatReplaces(a [2]answer) {
	if a[0].err != nil || a[1].err != nil {
		s := 0
		if a[0].err != nil {
			s = 1
		}
		name := a[s].bundle.GetCsvName()
		if d.cat.droppedDeprecated(s, d.c.pkg, name) || d.cat.droppedDeprecated(s, d.c.pkg, d.c.name) {
			d.errorVsAnswer(a, RuleDeprecatedBundleDropped, "bundle "+name)
			return
		}
		rule := RuleEdgeMissing
		if d.c.probe {
			rule = RuleErrorVsAnswer
		}
		d.errorVsAnswer(a, rule, "bundle "+name)
		return
	}
	l, r := a[0].bundle, a[1].bundle
	if l.GetCsvName() != r.GetCsvName() {
		// Where several bundles replace or skip the name, the API answers
		// any one of them (the declarative config server picks by map
		// order, so the real opm answers differently from run to run):
		// the answer is the candidate set, as an unordered list is its
		// members. Two answers that each side could have given are the
		// same answer; the bundles themselves are compared by GetBundle,
		// and a difference in the candidates by
		// GetChannelEntriesThatReplace and the graph.
		ck := ckey{d.c.pkg, d.c.channel}
		lc, rc := d.cat.replacers(0, ck, d.c.name), d.cat.replacers(1, ck, d.c.name)
		if lc[l.GetCsvName()] && lc[r.GetCsvName()] && rc[l.GetCsvName()] && rc[r.GetCsvName()] {
			return
		}
		d.add(RuleEdgeMissing, ".csvName", l.GetCsvName(), r.GetCsvName())
		return
	}
	d.bundle("", l, r, modeGetBundle)
}

// entryKey is a channel entry as a comparable value.
type entryKey struct{ pkg, channel, bundle, replaces string }

func (e entryKey) String() string {
	return fmt.Sprintf("%s/%s/%s replaces=%q", e.pkg, e.channel, e.bundle, e.replaces)
}

func entrySet(list []*api.ChannelEntry) map[entryKey]bool {
	m := map[entryKey]bool{}
	for _, e := range list {
		m[entryKey{e.GetPackageName(), e.GetChannelName(), e.GetBundleName(), e.GetReplaces()}] = true
	}
	return m
}

func (d *differ) entriesThatReplace(a [2]answer) {
	// An error is how both servers say "none" (§2): compare as empty.
	sets := [2]map[entryKey]bool{entrySet(a[0].entries), entrySet(a[1].entries)}
	byBundle := [2]map[bkey]entryKey{{}, {}}
	for s := range 2 {
		for e := range sets[s] {
			byBundle[s][bkey{e.pkg, e.channel, e.bundle}] = e
		}
	}
	keys := map[bkey]bool{}
	for s := range 2 {
		for k := range byBundle[s] {
			keys[k] = true
		}
	}
	for _, k := range sortedKeys(keys, bkeyLess) {
		le, lok := byBundle[0][k]
		re, rok := byBundle[1][k]
		path := "[" + k.String() + "]"
		switch {
		case lok && rok:
			if le.replaces == re.replaces {
				continue
			}
			// sqlite echoes the queried name for skip edges (§4.5).
			if (d.cat.asym(0) && le.replaces == d.c.name) || (d.cat.asym(1) && re.replaces == d.c.name) {
				d.add(RuleReplaceEntrySkipReplaces, path+".replaces", le.replaces, re.replaces)
				continue
			}
			d.add(RuleEdgeMissing, path+".replaces", le.replaces, re.replaces)
		default:
			s := 0
			if rok {
				s = 1
			}
			lt, rt := pick(s, "present", "absent")
			if d.cat.droppedDeprecated(s, k.pkg, k.name) {
				d.add(RuleDeprecatedBundleDropped, path, lt, rt)
				continue
			}
			d.add(RuleEdgeMissing, path, lt, rt)
		}
	}
	if len(d.out) == 0 && (a[0].err == nil) != (a[1].err == nil) {
		// Same (empty) entries, yet one side errs: an empty stream is
		// never an upstream answer to this RPC.
		d.errorVsAnswer(a, RuleErrorVsAnswer, "empty stream")
	}
}

func (d *differ) entriesThatProvide(a [2]answer) {
	sets := [2]map[entryKey]bool{entrySet(a[0].entries), entrySet(a[1].entries)}
	bundlesOf := func(m map[entryKey]bool) map[bkey]bool {
		out := map[bkey]bool{}
		for e := range m {
			out[bkey{e.pkg, e.channel, e.bundle}] = true
		}
		return out
	}
	if maps.Equal(sets[0], sets[1]) {
		if (a[0].err == nil) != (a[1].err == nil) {
			d.errorVsAnswer(a, RuleErrorVsAnswer, "empty stream")
		}
		return
	}
	bsets := [2]map[bkey]bool{bundlesOf(sets[0]), bundlesOf(sets[1])}
	for s := range 2 {
		o := 1 - s
		for _, e := range sortedOnly(sets[s], sets[o], entryLess) {
			lt, rt := pick(s, "present", "absent")
			path := "[" + e.String() + "]"
			k := bkey{e.pkg, e.channel, e.bundle}
			switch {
			case d.cat.droppedDeprecated(s, e.pkg, e.bundle):
				d.add(RuleDeprecatedBundleDropped, path, lt, rt)
			case bsets[o][k] && (d.cat.asym(0) || d.cat.asym(1)):
				// The other side serves the same provider in the same
				// channel, with other edge rows (§4.7).
				d.add(RuleProvideEntrySkipEdges, path, lt, rt)
			default:
				d.add(RuleEntryMissing, path, lt, rt)
			}
		}
	}
	if len(d.out) == 0 && (a[0].err == nil) != (a[1].err == nil) {
		d.errorVsAnswer(a, RuleErrorVsAnswer, "empty stream")
	}
}

func (d *differ) latestEntriesThatProvide(a [2]answer) {
	groups := [2]map[ckey]map[entryKey]bool{{}, {}}
	for s := range 2 {
		for e := range entrySet(a[s].entries) {
			ck := ckey{e.pkg, e.channel}
			if groups[s][ck] == nil {
				groups[s][ck] = map[entryKey]bool{}
			}
			groups[s][ck][e] = true
		}
	}
	chans := map[ckey]bool{}
	for s := range 2 {
		for ck := range groups[s] {
			chans[ck] = true
		}
	}
	for _, ck := range sortedKeys(chans, func(a, b ckey) bool {
		return a.pkg < b.pkg || a.pkg == b.pkg && a.channel < b.channel
	}) {
		g := [2]map[entryKey]bool{groups[0][ck], groups[1][ck]}
		if reflect.DeepEqual(g[0], g[1]) {
			continue
		}
		path := "[" + ck.pkg + "/" + ck.channel + "]"
		lt, rt := entriesText(g[0]), entriesText(g[1])
		rule := RuleEntryMissing
		for s := range 2 {
			if !d.cat.asym(s) {
				continue
			}
			o := 1 - s
			switch {
			case len(g[o]) == 0 && len(g[s]) > 0 && !anyHead(d.cat, g[s]):
				// sqlite found a provider below a head that does not
				// provide; the declarative config server looks at heads only.
				rule = RuleLatestProviderHeadVsNearest
			case len(g[s]) > 0 && subset(g[s], g[o]) && sameBundles(g[s], g[o]):
				// The declarative config server adds the head's skips.
				rule = RuleLatestProviderHeadVsNearest
			case len(g[s]) > 0 && len(g[o]) == 0 && allDropped(d.cat, s, g[s]):
				rule = RuleDeprecatedBundleDropped
			}
		}
		d.add(rule, path, lt, rt)
	}
	if len(d.out) == 0 && (a[0].err == nil) != (a[1].err == nil) {
		d.errorVsAnswer(a, RuleErrorVsAnswer, "empty stream")
	}
}

func anyHead(cat *catalog, m map[entryKey]bool) bool {
	for e := range m {
		if cat.isHead(e.pkg, e.channel, e.bundle) {
			return true
		}
	}
	return false
}

func allDropped(cat *catalog, s int, m map[entryKey]bool) bool {
	for e := range m {
		if !cat.droppedDeprecated(s, e.pkg, e.bundle) {
			return false
		}
	}
	return true
}

func subset(a, b map[entryKey]bool) bool {
	for e := range a {
		if !b[e] {
			return false
		}
	}
	return true
}

func sameBundles(a, b map[entryKey]bool) bool {
	names := func(m map[entryKey]bool) map[string]bool {
		out := map[string]bool{}
		for e := range m {
			out[e.bundle] = true
		}
		return out
	}
	return reflect.DeepEqual(names(a), names(b))
}

func entriesText(m map[entryKey]bool) string {
	if len(m) == 0 {
		return "none"
	}
	var out []string
	for _, e := range sortedKeys(m, entryLess) {
		out = append(out, fmt.Sprintf("%s replaces=%q", e.bundle, e.replaces))
	}
	return joinSorted(out)
}

func (d *differ) defaultBundleThatProvides(a [2]answer) {
	if a[0].err != nil || a[1].err != nil {
		s := 0
		if a[0].err != nil {
			s = 1
		}
		b := a[s].bundle
		switch {
		case d.cat.droppedDeprecated(s, b.GetPackageName(), b.GetCsvName()):
			d.errorVsAnswer(a, RuleDeprecatedBundleDropped, "bundle "+b.GetCsvName())
		case d.cat.asym(s) && !d.cat.isHead(b.GetPackageName(), b.GetChannelName(), b.GetCsvName()) && !d.headedDefault(s):
			d.errorVsAnswer(a, RuleLatestProviderHeadVsNearest, "bundle "+b.GetCsvName())
		default:
			rule := RuleProviderDiffers
			if d.c.probe {
				rule = RuleErrorVsAnswer
			}
			d.errorVsAnswer(a, rule, "bundle "+b.GetCsvName())
		}
		return
	}
	l, r := a[0].bundle, a[1].bundle
	if l.GetCsvName() != r.GetCsvName() || l.GetPackageName() != r.GetPackageName() {
		if d.cat.defaultProvider(0, l, d.c.gvk) && d.cat.defaultProvider(1, r, d.c.gvk) {
			d.add(RuleDefaultProviderChoice, ".csvName", l.GetPackageName()+"/"+l.GetCsvName(), r.GetPackageName()+"/"+r.GetCsvName())
			return
		}
		d.add(RuleProviderDiffers, ".csvName", l.GetPackageName()+"/"+l.GetCsvName(), r.GetPackageName()+"/"+r.GetCsvName())
		return
	}
	d.bundle("", l, r, modeGetBundle)
}

// headedDefault reports whether some default channel head on the other
// side provides the GVK (then the other side should have answered).
func (d *differ) headedDefault(s int) bool { return d.cat.headProvides(1-s, d.c.gvk) }
