package parity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"sort"
	"strings"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/operator-catalog/olmcat/registry/api"

	"github.com/operator-catalog/olmcat/internal/manifest"
)

// differ collects the differences of one call.
type differ struct {
	c   call
	cat *catalog
	out []Diff
}

func (d *differ) add(rule Rule, path, left, right string) {
	d.out = append(d.out, Diff{
		RPC: d.c.rpc, Request: d.c.request(), Path: path, Left: left, Right: right,
		Class: rule.Class, Rule: rule.Name, Explanation: rule.Explanation,
	})
}

// pick places v on side s and other on the other side, as (left, right).
func pick(s int, v string, other string) (string, string) {
	if s == 0 {
		return v, other
	}
	return other, v
}

// compare classifies the two answers to c.
func compare(cat *catalog, c call, a [2]answer) []Diff {
	d := &differ{c: c, cat: cat}
	if a[0].err != nil && a[1].err != nil {
		if a[0].errText() != a[1].errText() {
			d.add(RuleErrorText, "error", a[0].errText(), a[1].errText())
		}
		return d.out
	}
	switch c.rpc {
	case RPCListPackages:
		d.listPackages(a)
	case RPCGetPackage:
		d.getPackage(a)
	case RPCGetBundle:
		d.getBundle(a)
	case RPCGetBundleForChannel:
		d.getBundleForChannel(a)
	case RPCGetChannelEntriesThatReplace:
		d.entriesThatReplace(a)
	case RPCGetBundleThatReplaces:
		d.bundleThatReplaces(a)
	case RPCGetChannelEntriesThatProvide:
		d.entriesThatProvide(a)
	case RPCGetLatestChannelEntriesThatProvide:
		d.latestEntriesThatProvide(a)
	case RPCGetDefaultBundleThatProvides:
		d.defaultBundleThatProvides(a)
	case RPCListBundles:
		d.listBundles(a)
	}
	return d.out
}

// errorVsAnswer records a call one side answered and the other refused.
func (d *differ) errorVsAnswer(a [2]answer, rule Rule, what string) {
	d.add(rule, "error", errOrAnswer(a[0], what), errOrAnswer(a[1], what))
}

func (d *differ) listPackages(a [2]answer) {
	if a[0].err != nil || a[1].err != nil {
		d.errorVsAnswer(a, RuleErrorVsAnswer, "package list")
		return
	}
	sets := [2]map[string]bool{toSet(a[0].names), toSet(a[1].names)}
	for s := range 2 {
		for _, n := range sortedKeys(sets[s], strLess) {
			if !sets[1-s][n] {
				l, r := pick(s, n, "absent")
				d.add(RulePackageMissing, "["+n+"]", l, r)
			}
		}
	}
}

func (d *differ) getPackage(a [2]answer) {
	if a[0].err != nil || a[1].err != nil {
		d.errorVsAnswer(a, RulePackageMissing, "package "+d.c.pkg)
		return
	}
	l, r := a[0].pkg, a[1].pkg
	if l.GetName() != r.GetName() {
		d.add(RuleFieldDiffers, ".name", l.GetName(), r.GetName())
	}
	if l.GetDefaultChannelName() != r.GetDefaultChannelName() {
		d.add(RuleDefaultChannel, ".defaultChannelName", l.GetDefaultChannelName(), r.GetDefaultChannelName())
	}
	d.deprecation(".deprecation", l.GetDeprecation(), r.GetDeprecation())
	chans := [2]map[string]*api.Channel{{}, {}}
	for s, p := range []*api.Package{l, r} {
		for _, ch := range p.GetChannels() {
			chans[s][ch.GetName()] = ch
		}
	}
	names := map[string]bool{}
	for s := range 2 {
		for n := range chans[s] {
			names[n] = true
		}
	}
	for _, n := range sortedKeys(names, strLess) {
		lc, rc := chans[0][n], chans[1][n]
		path := ".channels[" + n + "]"
		switch {
		case lc == nil:
			d.add(RuleChannelMissing, path, "absent", "head "+rc.GetCsvName())
		case rc == nil:
			d.add(RuleChannelMissing, path, "head "+lc.GetCsvName(), "absent")
		default:
			if lc.GetCsvName() != rc.GetCsvName() {
				d.add(RuleHeadDiffers, path+".csvName", lc.GetCsvName(), rc.GetCsvName())
			}
			d.deprecation(path+".deprecation", lc.GetDeprecation(), rc.GetDeprecation())
		}
	}
	// Anything the proto has beyond the fields above (unknown fields of a
	// newer server) must match too.
	if diff := cmp.Diff(l, r, protocmp.Transform(),
		protocmp.IgnoreFields(&api.Package{}, "name", "channels", "defaultChannelName", "deprecation")); diff != "" {
		d.add(RuleFieldDiffers, ".", "see right", compact(diff))
	}
}

// deprecation compares deprecation messages; one missing is benign when
// the side lacking it may be the sqlite server.
func (d *differ) deprecation(path string, l, r *api.Deprecation) {
	switch {
	case l == nil && r == nil:
	case l == nil || r == nil:
		s := 0 // the side lacking it
		if r == nil {
			s = 1
		}
		rule := RuleFieldDiffers
		if d.cat.asym(s) {
			rule = RuleDeprecationFBCOnly
		}
		d.add(rule, path, depText(l), depText(r))
	case l.GetMessage() != r.GetMessage():
		d.add(RuleFieldDiffers, path, depText(l), depText(r))
	}
}

func depText(x *api.Deprecation) string {
	if x == nil {
		return "none"
	}
	return fmt.Sprintf("%q", x.GetMessage())
}

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
			d.add(RuleFieldDiffers, path+"."+field, quote(lv), quote(rv))
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
	// of a newer server this client does not know (unknown fields).
	if hasUnknown(l) || hasUnknown(r) {
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
		for _, n := range sortedKeys(m, strLess) {
			if !other[n] {
				lt, rt := pick(s, n, "absent")
				d.add(RuleEdgeMissing, path+".edges["+n+"]", lt, rt)
			}
		}
	}
}

func edgeText(b *api.Bundle) string {
	sk := append([]string(nil), b.GetSkips()...)
	sort.Strings(sk)
	return fmt.Sprintf("replaces=%q skips=%s", b.GetReplaces(), joinSorted(sk))
}

// manifests compares csvJson and object as parsed JSON.
func (d *differ) manifests(path string, l, r *api.Bundle, mode bundleMode) {
	c := &d.cat.canon
	sameCSV := c.digest(l.GetCsvJson()) == c.digest(r.GetCsvJson())
	sameObjects := c.sameList(l.GetObject(), r.GetObject())
	if sameCSV && sameObjects || d.csvMetadata(path, l, r) {
		return
	}
	d.csvJSONAt(path, l.GetCsvJson(), r.GetCsvJson(), mode)
	if sameObjects {
		return
	}
	lo, ro := canonList(l.GetObject()), canonList(r.GetObject())
	if reflect.DeepEqual(lo, ro) {
		return
	}
	if mode == modeListBundles && (len(lo) == 0 || len(ro) == 0) {
		d.add(RuleListBundlesManifests, path+".object", fmt.Sprintf("%d objects", len(lo)), fmt.Sprintf("%d objects", len(ro)))
		return
	}
	lm, rm := toSet(lo), toSet(ro)
	for s, m := range []map[string]bool{lm, rm} {
		other := []map[string]bool{lm, rm}[1-s]
		for _, o := range sortedKeys(m, strLess) {
			if !other[o] {
				lt, rt := pick(s, objectName(o), "absent")
				d.add(RuleManifestsDiffer, path+".object["+objectName(o)+"]", lt, rt)
			}
		}
	}
	if len(lo) != len(ro) && reflect.DeepEqual(lm, rm) {
		d.add(RuleManifestsDiffer, path+".object", fmt.Sprintf("%d objects", len(lo)), fmt.Sprintf("%d objects", len(ro)))
	}
}

func (d *differ) csvJSON(l, r string, mode bundleMode) { d.csvJSONAt("", l, r, mode) }

func (d *differ) csvJSONAt(path, l, r string, mode bundleMode) {
	if d.cat.canon.digest(l) == d.cat.canon.digest(r) {
		return
	}
	lc, rc := canon(l), canon(r)
	if lc == rc {
		return
	}
	if mode == modeListBundles && (lc == "" || rc == "") {
		d.add(RuleListBundlesManifests, path+".csvJson", presence(lc), presence(rc))
		return
	}
	d.add(RuleManifestsDiffer, path+".csvJson", objectName(lc), objectName(rc))
}

func presence(s string) string {
	if s == "" {
		return "empty"
	}
	return objectName(s)
}

// csvMetadata recognises an image bundle whose manifests the declarative
// config side replaced by olm.csv.metadata (a synthesized CSV and nothing
// else), and records it as benign. The synthetic CSV must name the same
// bundle as the other side's CSV.
func (d *differ) csvMetadata(path string, l, r *api.Bundle) bool {
	b := [2]*api.Bundle{l, r}
	for s := range 2 {
		o := 1 - s
		if !d.cat.asym(o) || b[s].GetBundlePath() == "" || b[o].GetCsvJson() == "" {
			continue
		}
		name, ok := syntheticCSV(b[s])
		if !ok {
			continue
		}
		if other, isSynth := syntheticCSV(b[o]); isSynth || csvName(b[o].GetCsvJson()) != name || other != "" {
			continue
		}
		lt, rt := pick(s, "synthetic CSV from olm.csv.metadata", fmt.Sprintf("CSV and %d objects", len(b[o].GetObject())))
		d.add(RuleCSVMetadataManifests, path+".csvJson", lt, rt)
		return true
	}
	return false
}

// syntheticCSV reports whether b's csvJson is the CSV a declarative config
// server synthesizes from olm.csv.metadata (install strategy reduced to
// {"strategy":"deployment"} without deployments) and b serves no other
// object; it returns the CSV's name.
func syntheticCSV(b *api.Bundle) (string, bool) {
	csv, err := manifest.ParseCSV([]byte(b.GetCsvJson()))
	if err != nil || csv.Kind() != manifest.KindCSV {
		return "", false
	}
	if strategy, deployments, err := csv.InstallStrategy(); err != nil || strategy != "deployment" || deployments != 0 {
		return "", false
	}
	objs := b.GetObject()
	if len(objs) > 1 || len(objs) == 1 && canon(objs[0]) != canon(b.GetCsvJson()) {
		return "", false
	}
	return csv.Name(), true
}

func csvName(csvJSON string) string { return manifest.ReadHead([]byte(csvJSON)).Name }

// objectName names a canonical JSON object by kind and name.
func objectName(s string) string {
	if s == "" {
		return "empty"
	}
	h := manifest.ReadHead([]byte(s))
	if h.Kind == "" || !json.Valid([]byte(s)) {
		if len(s) > 80 {
			return s[:77] + "..."
		}
		return s
	}
	return h.Kind + "/" + h.Name + fmt.Sprintf(" (%d bytes)", len(s))
}

// apis compares GVK lists as sets; plural is compared separately.
func (d *differ) apis(path string, l, r []*api.GroupVersionKind) {
	m := [2]map[manifest.GVK]string{{}, {}}
	for s, list := range [][]*api.GroupVersionKind{l, r} {
		for _, a := range list {
			m[s][manifest.GVK{Group: a.GetGroup(), Version: a.GetVersion(), Kind: a.GetKind()}] = a.GetPlural()
		}
	}
	var plural [2][]string
	pluralRule := RulePluralSQLiteOnly
	for s := range 2 {
		for _, g := range sortedKeys(keysOf(m[s]), gvkLess) {
			p, ok := m[1-s][g]
			if !ok {
				lt, rt := pick(s, g.String(), "absent")
				d.add(RuleAPIMissing, path+"["+g.String()+"]", lt, rt)
				continue
			}
			if s == 1 || p == m[s][g] {
				continue
			}
			// s == 0: report each plural difference once.
			plural[0] = append(plural[0], g.String()+"="+m[0][g])
			plural[1] = append(plural[1], g.String()+"="+p)
			filled := 0
			if m[0][g] == "" {
				filled = 1
			}
			if (m[0][g] != "" && p != "") || !d.cat.asym(filled) {
				pluralRule = RuleFieldDiffers
			}
		}
	}
	if len(plural[0]) > 0 {
		d.add(pluralRule, path+"[*].plural", joinSorted(plural[0]), joinSorted(plural[1]))
	}
}

// hasUnknown reports whether m, or a message inside it, carries fields
// this client's proto does not define.
func hasUnknown(m proto.Message) bool {
	found := false
	var walk func(protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if found || len(m.GetUnknown()) > 0 {
			found = true
			return
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.Message() == nil:
			case fd.IsList():
				for i := range v.List().Len() {
					walk(v.List().Get(i).Message())
				}
			default:
				walk(v.Message())
			}
			return !found
		})
	}
	walk(m.ProtoReflect())
	return found
}

// typed is a property or dependency with its value in canonical JSON.
type typed struct{ typ, value string }

func (t typed) String() string { return t.typ + " " + t.value }

func typedSet[T interface {
	GetType() string
	GetValue() string
}](c *canonCache, list []T) map[typed]bool {
	m := map[typed]bool{}
	for _, p := range list {
		m[typed{p.GetType(), c.value(p.GetValue())}] = true
	}
	return m
}

// propsAndDeps compares properties and dependencies as sets of parsed
// values, recognising the migration's and the servers' known reshapings.
func (d *differ) propsAndDeps(path string, l, r *api.Bundle) {
	bundles := [2]*api.Bundle{l, r}
	c := &d.cat.canon
	props := [2]map[typed]bool{typedSet(c, l.GetProperties()), typedSet(c, r.GetProperties())}
	deps := [2]map[typed]bool{typedSet(c, l.GetDependencies()), typedSet(c, r.GetDependencies())}
	hasType := func(m map[typed]bool, typ string) bool {
		for t := range m {
			if t.typ == typ {
				return true
			}
		}
		return false
	}

	// Properties on one side only.
	var only [2][]typed
	for s := range 2 {
		for _, p := range sortedKeys(props[s], typedLess) {
			if !props[1-s][p] {
				only[s] = append(only[s], p)
			}
		}
	}
	var unexplained [2][]typed
	for s := range 2 {
		o := 1 - s
		for _, p := range only[s] {
			rule, ok := Rule{}, false
			switch p.typ {
			case typeGVKRequired:
				ok = d.cat.asym(o) && deps[o][typed{typeGVK, p.value}]
				rule = RuleRequiredPropertiesFBCOnly
			case typePackageRequired:
				ok = d.cat.asym(o) && deps[o][typed{typePackage, packageRequiredAsDependency(p.value)}]
				rule = RuleRequiredPropertiesFBCOnly
			case typeLabelRequired:
				ok = d.cat.asym(o) && deps[o][typed{typeLabel, p.value}]
				rule = RuleLabelConstraintAsProperty
			case typeConstraint:
				ok = d.cat.asym(o) && deps[o][typed{typeConstraint, p.value}]
				rule = RuleLabelConstraintAsProperty
			case typePackage:
				ok = d.cat.asym(o) && !hasType(props[o], typePackage)
				rule = RulePackagePropertySynthesized
			case typeDeprecated:
				ok = d.cat.asym(s) && bundles[o].GetDeprecation() != nil
				rule = RuleDeprecatedPropertyAsDeprecation
			}
			if ok {
				lt, rt := pick(s, p.value, "absent")
				d.add(rule, path+".properties["+p.typ+"]", lt, rt)
				continue
			}
			unexplained[s] = append(unexplained[s], p)
		}
	}
	d.pairTyped(path+".properties", unexplained, RulePropertyDiffers, RulePropertyMissing)

	// Dependencies on one side only.
	var depOnly [2][]typed
	for s := range 2 {
		o := 1 - s
		for _, p := range sortedKeys(deps[s], typedLess) {
			if deps[o][p] {
				continue
			}
			var ok bool
			switch p.typ {
			case typeLabel:
				ok = d.cat.asym(s) && props[o][typed{typeLabelRequired, p.value}]
			case typeConstraint:
				ok = d.cat.asym(s) && props[o][typed{typeConstraint, p.value}]
			}
			if ok {
				lt, rt := pick(s, p.value, "absent (kept as property)")
				d.add(RuleLabelConstraintAsProperty, path+".dependencies["+p.typ+"]", lt, rt)
				continue
			}
			depOnly[s] = append(depOnly[s], p)
		}
	}
	d.pairTyped(path+".dependencies", depOnly, RuleDependencyMissing, RuleDependencyMissing)
}

// pairTyped reports unexplained one-sided values: a value of the same type
// on each side is a changed value, the rest are missing.
func (d *differ) pairTyped(path string, only [2][]typed, differs, missing Rule) {
	byType := [2]map[string][]typed{{}, {}}
	for s := range 2 {
		for _, p := range only[s] {
			byType[s][p.typ] = append(byType[s][p.typ], p)
		}
	}
	types := map[string]bool{}
	for s := range 2 {
		for t := range byType[s] {
			types[t] = true
		}
	}
	for _, t := range sortedKeys(types, strLess) {
		lv, rv := byType[0][t], byType[1][t]
		n := min(len(lv), len(rv))
		for i := range n {
			d.add(differs, path+"["+t+"]", lv[i].value, rv[i].value)
		}
		for _, p := range lv[n:] {
			d.add(missing, path+"["+t+"]", p.value, "absent")
		}
		for _, p := range rv[n:] {
			d.add(missing, path+"["+t+"]", "absent", p.value)
		}
	}
}

// packageRequiredAsDependency turns an olm.package.required value
// {packageName, versionRange} into the olm.package dependency value the
// sqlite side stores ({packageName, version}), canonical.
func packageRequiredAsDependency(v string) string {
	var p struct {
		PackageName  string `json:"packageName"`
		VersionRange string `json:"versionRange"`
	}
	if json.Unmarshal([]byte(v), &p) != nil {
		return ""
	}
	b, _ := json.Marshal(map[string]string{"packageName": p.PackageName, "version": p.VersionRange})
	return canon(string(b))
}

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
		// Benign only if each side could have given the other's answer.
		ck := ckey{d.c.pkg, d.c.channel}
		lc, rc := d.cat.sides[0].replacers[ck][d.c.name], d.cat.sides[1].replacers[ck][d.c.name]
		if lc[l.GetCsvName()] && lc[r.GetCsvName()] && rc[l.GetCsvName()] && rc[r.GetCsvName()] {
			d.add(RuleBundleThatReplacesChoice, ".csvName", l.GetCsvName(), r.GetCsvName())
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
		for _, e := range sortedKeys(sets[s], entryLess) {
			if sets[o][e] {
				continue
			}
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
func (d *differ) headedDefault(s int) bool {
	o := d.cat.sides[1-s]
	for name, p := range o.packages {
		if head := o.bundles[bkey{name, p.GetDefaultChannelName(), headOf(p, p.GetDefaultChannelName())}]; head != nil {
			for _, a := range head.GetProvidedApis() {
				if (manifest.GVK{Group: a.GetGroup(), Version: a.GetVersion(), Kind: a.GetKind()}) == d.c.gvk {
					return true
				}
			}
		}
	}
	return false
}

func headOf(p *api.Package, channel string) string {
	for _, ch := range p.GetChannels() {
		if ch.GetName() == channel {
			return ch.GetCsvName()
		}
	}
	return ""
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
	keys := map[bkey]bool{}
	for s := range 2 {
		for k := range m[s] {
			keys[k] = true
		}
	}
	for _, k := range sortedKeys(keys, bkeyLess) {
		l, r := m[0][k], m[1][k]
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

// canon parses s as JSON and re-encodes it with sorted keys, no HTML
// escaping and numbers as float64, so encodings compare equal. Text that
// is not JSON is compared trimmed.
func canon(s string) string {
	t := strings.TrimSpace(s)
	if t == "" {
		return ""
	}
	var v any
	if err := json.Unmarshal([]byte(t), &v); err != nil {
		return t
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return t
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func canonList(list []string) []string {
	out := make([]string, 0, len(list))
	for _, s := range list {
		out = append(out, canon(s))
	}
	sort.Strings(out)
	return out
}

func compact(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:297] + "..."
	}
	return s
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

func toSet(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
}

func keysOf[K comparable, V any](m map[K]V) map[K]bool {
	out := make(map[K]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

func strLess(a, b string) bool       { return a < b }
func gvkLess(a, b manifest.GVK) bool { return a.String() < b.String() }
func typedLess(a, b typed) bool {
	return a.typ < b.typ || a.typ == b.typ && a.value < b.value
}
func entryLess(a, b entryKey) bool {
	if a.pkg != b.pkg {
		return a.pkg < b.pkg
	}
	if a.channel != b.channel {
		return a.channel < b.channel
	}
	if a.bundle != b.bundle {
		return a.bundle < b.bundle
	}
	return a.replaces < b.replaces
}

func bkeyLess(a, b bkey) bool {
	if a.pkg != b.pkg {
		return a.pkg < b.pkg
	}
	if a.channel != b.channel {
		return a.channel < b.channel
	}
	return a.name < b.name
}
