package parity

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/registry/api"
)

// apis compares GVK lists as sets; plural is compared separately. Both
// lists are sorted and walked together: a GVK only the left has is
// reported as it is met, one only the right has after all of those, and
// the plurals that differ (each once) last, all in GVK order.
func (d *differ) apis(path string, l, r []*api.GroupVersionKind) {
	// Answers list a few GVKs: the sorted copies stay on the stack.
	var lbuf, rbuf [8]apiEntry
	left, right := sortedAPIs(lbuf[:0], l), sortedAPIs(rbuf[:0], r)
	var rightOnly []manifest.GVK
	var plural [2][]string
	pluralRule := RulePluralSQLiteOnly
	for i, j := 0, 0; i < len(left) || j < len(right); {
		c := -1
		switch {
		case i == len(left):
			c = 1
		case j < len(right):
			c = compareAPIs(left[i], right[j])
		}
		switch {
		case c < 0:
			g := left[i].gvk.String()
			d.add(RuleAPIMissing, path+"["+g+"]", g, "absent")
			i++
		case c > 0:
			rightOnly = append(rightOnly, right[j].gvk)
			j++
		default:
			lp, rp := left[i].plural, right[j].plural
			if lp != rp {
				g := left[i].gvk.String()
				plural[0] = append(plural[0], g+"="+lp)
				plural[1] = append(plural[1], g+"="+rp)
				filled := 0
				if lp == "" {
					filled = 1
				}
				if (lp != "" && rp != "") || !d.cat.asym(filled) {
					pluralRule = RuleFieldDiffers
				}
			}
			i++
			j++
		}
	}
	for _, gvk := range rightOnly {
		g := gvk.String()
		d.add(RuleAPIMissing, path+"["+g+"]", "absent", g)
	}
	if len(plural[0]) > 0 {
		d.add(pluralRule, path+"[*].plural", joinSorted(plural[0]), joinSorted(plural[1]))
	}
}

// apiEntry is one GVK of an answer's API list with its plural.
type apiEntry struct {
	gvk    manifest.GVK
	plural string
}

// compareAPIs orders API entries as their GVKs are reported
// (manifest.GVK.String), and GVKs reported alike (a group or version
// holding a slash) by their fields.
func compareAPIs(a, b apiEntry) int {
	return cmp.Or(compareGVKStrings(a.gvk, b.gvk), strings.Compare(a.gvk.Group, b.gvk.Group),
		strings.Compare(a.gvk.Version, b.gvk.Version))
}

// compareGVKStrings is strings.Compare(a.String(), b.String()) without
// building either string. It is a hand-written second version of that
// comparison and stays only while BenchmarkCompareAPIs shows it buys 20%
// or more over comparing keys built once per GVK with GVK.String.
func compareGVKStrings(a, b manifest.GVK) int {
	if a.Group == b.Group && a.Version == b.Version {
		return strings.Compare(a.Kind, b.Kind)
	}
	as := [...]string{a.Group, "/", a.Version, "/", a.Kind}
	bs := [...]string{b.Group, "/", b.Version, "/", b.Kind}
	i, j := 0, 0
	x, y := as[0], bs[0]
	for {
		for x == "" && i+1 < len(as) {
			i++
			x = as[i]
		}
		for y == "" && j+1 < len(bs) {
			j++
			y = bs[j]
		}
		if x == "" || y == "" {
			return cmp.Compare(len(x), len(y)) // the one that ended first is less
		}
		n := min(len(x), len(y))
		if c := strings.Compare(x[:n], y[:n]); c != 0 {
			return c
		}
		x, y = x[n:], y[n:]
	}
}

// sortedAPIs appends list's GVKs to dst sorted, each once with the plural
// of its last occurrence (the set a client building a map from the list
// has).
func sortedAPIs(dst []apiEntry, list []*api.GroupVersionKind) []apiEntry {
	for _, a := range list {
		dst = append(dst, apiEntry{gvk: manifest.GVK{Group: a.GetGroup(), Version: a.GetVersion(), Kind: a.GetKind()}, plural: a.GetPlural()})
	}
	slices.SortStableFunc(dst, compareAPIs)
	kept := dst[:0]
	for i, e := range dst {
		if i+1 < len(dst) && dst[i+1].gvk == e.gvk {
			continue // a later occurrence overrides this one
		}
		kept = append(kept, e)
	}
	return kept
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

// typedSet is a set of typed values, sorted by type and then value
// (compareTyped), each once.
type typedSet []typed

func newTypedSet[T interface {
	GetType() string
	GetValue() string
}](c *canonCache, list []T) typedSet {
	set := make(typedSet, 0, len(list))
	for _, p := range list {
		set = append(set, typed{p.GetType(), c.value(p.GetValue())})
	}
	slices.SortFunc(set, compareTyped)
	return slices.Compact(set)
}

// compareTyped orders typed values by type, then value.
func compareTyped(a, b typed) int {
	return cmp.Or(strings.Compare(a.typ, b.typ), strings.Compare(a.value, b.value))
}

// has reports whether t is in the set.
func (set typedSet) has(t typed) bool {
	_, found := slices.BinarySearchFunc(set, t, compareTyped)
	return found
}

// hasType reports whether the set holds a value of type typ.
func (set typedSet) hasType(typ string) bool {
	// The first member of type typ, if any, is where the least value of
	// that type would go.
	i, _ := slices.BinarySearchFunc(set, typed{typ: typ}, compareTyped)
	return i < len(set) && set[i].typ == typ
}

// only returns the members of set that other lacks, in order.
func (set typedSet) only(other typedSet) []typed {
	var out []typed
	j := 0
	for _, t := range set {
		for j < len(other) && compareTyped(other[j], t) < 0 {
			j++
		}
		if j == len(other) || other[j] != t {
			out = append(out, t)
		}
	}
	return out
}

// propsAndDeps compares properties and dependencies as sets of parsed
// values, recognising the migration's and the servers' known reshapings.
func (d *differ) propsAndDeps(path string, l, r *api.Bundle) {
	bundles := [2]*api.Bundle{l, r}
	c := d.cat.canon
	props := [2]typedSet{newTypedSet(c, l.GetProperties()), newTypedSet(c, r.GetProperties())}
	deps := [2]typedSet{newTypedSet(c, l.GetDependencies()), newTypedSet(c, r.GetDependencies())}
	d.properties(path, bundles, props, deps)
	d.dependencies(path, props, deps)
}

// properties compares the properties on one side only: those a benign
// rule explains are reported under it, the rest paired as differing or
// missing.
func (d *differ) properties(path string, bundles [2]*api.Bundle, props, deps [2]typedSet) {
	var unexplained [2][]typed
	for s := range 2 {
		o := 1 - s
		for _, p := range props[s].only(props[o]) {
			rule, ok := Rule{}, false
			switch p.typ {
			case declcfg.PropertyGVKRequired:
				ok = d.cat.asym(o) && deps[o].has(typed{declcfg.PropertyGVK, p.value})
				rule = RuleRequiredPropertiesFBCOnly
			case declcfg.PropertyPackageRequired:
				ok = d.cat.asym(o) && deps[o].has(typed{declcfg.PropertyPackage, packageRequiredAsDependency(p.value)})
				rule = RuleRequiredPropertiesFBCOnly
			case declcfg.PropertyLabelRequired:
				ok = d.cat.asym(o) && deps[o].has(typed{declcfg.PropertyLabel, p.value})
				rule = RuleLabelConstraintAsProperty
			case declcfg.PropertyConstraint:
				ok = d.cat.asym(o) && deps[o].has(typed{declcfg.PropertyConstraint, p.value})
				rule = RuleLabelConstraintAsProperty
			case declcfg.PropertyPackage:
				ok = d.cat.asym(o) && !props[o].hasType(declcfg.PropertyPackage)
				rule = RulePackagePropertySynthesized
			case declcfg.PropertyDeprecated:
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
}

// dependencies compares the dependencies on one side only; a label or
// constraint kept as a property on the other side is benign.
func (d *differ) dependencies(path string, props, deps [2]typedSet) {
	var depOnly [2][]typed
	for s := range 2 {
		o := 1 - s
		for _, p := range deps[s].only(deps[o]) {
			var ok bool
			switch p.typ {
			case declcfg.PropertyLabel:
				ok = d.cat.asym(s) && props[o].has(typed{declcfg.PropertyLabelRequired, p.value})
			case declcfg.PropertyConstraint:
				ok = d.cat.asym(s) && props[o].has(typed{declcfg.PropertyConstraint, p.value})
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
	p, err := declcfg.ParsePackageRequiredValue([]byte(v))
	if err != nil {
		return ""
	}
	b, _ := json.Marshal(map[string]string{"packageName": p.PackageName, "version": p.VersionRange})
	return canon(string(b))
}
