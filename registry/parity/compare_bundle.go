package parity

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/operator-catalog/olmcat/registry/api"
)

func (d *differ) getBundle(a [2]answer) {
	if a[0].err != nil || a[1].err != nil {
		d.missingBundle(a, d.c.pkg, d.c.name)
		return
	}
	d.bundle("", a[0].bundle, a[1].bundle, modeGetBundle)
}

// missingBundle classifies a bundle call answered on one side only.
func (d *differ) missingBundle(a [2]answer, pkg, name string) {
	s := 0 // the side that answered
	if a[0].err != nil {
		s = 1
	}
	if a[s].bundle != nil {
		name = a[s].bundle.GetCsvName()
	}
	if d.cat.droppedDeprecated(s, pkg, name) {
		d.errorVsAnswer(a, RuleDeprecatedBundleDropped, "bundle "+name)
		return
	}
	rule := RuleBundleMissing
	if d.c.probe {
		rule = RuleErrorVsAnswer
	}
	d.errorVsAnswer(a, rule, "bundle "+name)
}

func (d *differ) getBundleForChannel(a [2]answer) {
	if a[0].err != nil || a[1].err != nil {
		d.errorVsAnswer(a, RuleChannelMissing, "channel head")
		return
	}
	l, r := a[0].bundle, a[1].bundle
	trimmed := [2]bool{isTrimmed(l), isTrimmed(r)}
	for s := range 2 {
		if trimmed[s] && !trimmed[1-s] && d.cat.asym(s) {
			if l.GetCsvName() != r.GetCsvName() {
				d.add(RuleHeadDiffers, ".csvName", l.GetCsvName(), r.GetCsvName())
				return
			}
			full := []*api.Bundle{l, r}[1-s]
			if !d.csvMetadata("", l, r) {
				d.csvJSON(l.GetCsvJson(), r.GetCsvJson(), modeGetBundle)
			}
			lt, rt := pick(s, "csvName, csvJson", "also "+strings.Join(setFields(full), ", "))
			d.add(RuleGetBundleForChannelShape, ".", lt, rt)
			return
		}
	}
	if l.GetCsvName() != r.GetCsvName() {
		d.add(RuleHeadDiffers, ".csvName", l.GetCsvName(), r.GetCsvName())
		return
	}
	d.bundle("", l, r, modeGetBundle)
}

// isTrimmed reports the sqlite GetBundleForChannel shape: nothing but
// csvName and csvJson.
func isTrimmed(b *api.Bundle) bool {
	return len(setFields(b)) == 0
}

// setFields lists the fields beyond csvName and csvJson that b sets.
func setFields(b *api.Bundle) []string {
	var out []string
	b.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		if n := string(fd.Name()); n != "csvName" && n != "csvJson" {
			out = append(out, n)
		}
		return true
	})
	sort.Strings(out)
	return out
}

// bundle modes: which RPC family the bundle comes from.
type bundleMode int

const (
	modeGetBundle bundleMode = iota
	modeListBundles
)

// bundle compares two bundles field by field; path prefixes every diff.
func (d *differ) bundle(path string, l, r *api.Bundle, mode bundleMode) {
	str := func(field, lv, rv string) {
		if lv != rv {
			d.add(RuleFieldDiffers, path+"."+field, goQuote(lv), goQuote(rv))
		}
	}
	str("csvName", l.GetCsvName(), r.GetCsvName())
	str("packageName", l.GetPackageName(), r.GetPackageName())
	str("channelName", l.GetChannelName(), r.GetChannelName())
	str("bundlePath", l.GetBundlePath(), r.GetBundlePath())
	str("version", l.GetVersion(), r.GetVersion())
	str("skipRange", l.GetSkipRange(), r.GetSkipRange())
	d.edges(path, l, r)

	d.manifests(path, l, r, mode)
	d.apis(path+".providedApis", l.GetProvidedApis(), r.GetProvidedApis())
	d.apis(path+".requiredApis", l.GetRequiredApis(), r.GetRequiredApis())
	d.propsAndDeps(path, l, r)
	d.deprecation(path+".deprecation", l.GetDeprecation(), r.GetDeprecation())

	// Every field of the proto is compared above; what remains are fields
	// of a newer live server this client does not know (unknown fields).
	if d.cat.remote[0] && hasUnknown(l) || d.cat.remote[1] && hasUnknown(r) {
		if diff := cmp.Diff(l, r, protocmp.Transform(), protocmp.IgnoreFields(&api.Bundle{},
			"csvName", "packageName", "channelName", "csvJson", "object", "bundlePath", "providedApis",
			"requiredApis", "version", "skipRange", "dependencies", "properties", "replaces", "skips",
			"deprecation")); diff != "" {
			d.add(RuleFieldDiffers, path+".", "see right", compact(diff))
		}
	}
}

// edges compares replaces and skips (set by ListBundles only).
func (d *differ) edges(path string, l, r *api.Bundle) {
	ls, rs := toSet(l.GetSkips()), toSet(r.GetSkips())
	if l.GetReplaces() == r.GetReplaces() && reflect.DeepEqual(ls, rs) {
		return
	}
	all := func(b *api.Bundle) map[string]bool {
		m := toSet(b.GetSkips())
		if b.GetReplaces() != "" {
			m[b.GetReplaces()] = true
		}
		return m
	}
	la, ra := all(l), all(r)
	if reflect.DeepEqual(la, ra) {
		// Same edges, split differently between replaces and skips.
		for s := range 2 {
			if d.cat.asym(s) {
				d.add(RuleListBundlesEdgeKind, path+".replaces", edgeText(l), edgeText(r))
				return
			}
		}
		d.add(RuleEdgeMissing, path+".replaces", edgeText(l), edgeText(r))
		return
	}
	for s, m := range []map[string]bool{la, ra} {
		other := []map[string]bool{la, ra}[1-s]
		for _, n := range sortedOnly(m, other, strLess) {
			lt, rt := pick(s, n, "absent")
			d.add(RuleEdgeMissing, path+".edges["+n+"]", lt, rt)
		}
	}
}

func edgeText(b *api.Bundle) string {
	sk := append([]string(nil), b.GetSkips()...)
	sort.Strings(sk)
	return fmt.Sprintf("replaces=%q skips=%s", b.GetReplaces(), joinSorted(sk))
}

func (d *differ) listBundles(a [2]answer) {
	if a[0].err != nil || a[1].err != nil {
		d.errorVsAnswer(a, RuleErrorVsAnswer, "bundle list")
		return
	}
	m := [2]map[bkey]*api.Bundle{{}, {}}
	for s := range 2 {
		for _, b := range a[s].bundles {
			m[s][bkey{b.GetPackageName(), b.GetChannelName(), b.GetCsvName()}] = b
		}
	}
	d.bundleLists(m[0], m[1])
}

// bundleLists compares two sides' ListBundles bundles (all, or one
// package's share) by package, channel and name.
func (d *differ) bundleLists(l, r map[bkey]*api.Bundle) {
	keys := map[bkey]bool{}
	for _, m := range []map[bkey]*api.Bundle{l, r} {
		for k := range m {
			keys[k] = true
		}
	}
	for _, k := range sortedKeys(keys, bkeyLess) {
		l, r := l[k], r[k]
		path := "[" + k.String() + "]"
		switch {
		case l != nil && r != nil:
			d.bundle(path, l, r, modeListBundles)
		default:
			s := 0
			if r != nil {
				s = 1
			}
			lt, rt := pick(s, "present", "absent")
			if d.cat.droppedDeprecated(s, k.pkg, k.name) {
				d.add(RuleDeprecatedBundleDropped, path, lt, rt)
				continue
			}
			d.add(RuleBundleMissing, path, lt, rt)
		}
	}
}
