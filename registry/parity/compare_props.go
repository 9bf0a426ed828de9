package parity

import (
	"encoding/json"
	"sort"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/registry/api"
)

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
		// Only a GVK one side lacks, or (once) whose plurals differ, is
		// reported: sort just those.
		var report []manifest.GVK
		for g, p := range m[s] {
			if q, ok := m[1-s][g]; !ok || (s == 0 && q != p) {
				report = append(report, g)
			}
		}
		sort.Slice(report, func(i, j int) bool { return gvkLess(report[i], report[j]) })
		for _, g := range report {
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
	c := d.cat.canon
	props := [2]map[typed]bool{typedSet(c, l.GetProperties()), typedSet(c, r.GetProperties())}
	deps := [2]map[typed]bool{typedSet(c, l.GetDependencies()), typedSet(c, r.GetDependencies())}
	d.properties(path, bundles, props, deps)
	d.dependencies(path, props, deps)
}

// properties compares the properties on one side only: those a benign
// rule explains are reported under it, the rest paired as differing or
// missing.
func (d *differ) properties(path string, bundles [2]*api.Bundle, props, deps [2]map[typed]bool) {
	var unexplained [2][]typed
	for s := range 2 {
		o := 1 - s
		for _, p := range sortedOnly(props[s], props[o], typedLess) {
			rule, ok := Rule{}, false
			switch p.typ {
			case declcfg.PropertyGVKRequired:
				ok = d.cat.asym(o) && deps[o][typed{declcfg.PropertyGVK, p.value}]
				rule = RuleRequiredPropertiesFBCOnly
			case declcfg.PropertyPackageRequired:
				ok = d.cat.asym(o) && deps[o][typed{declcfg.PropertyPackage, packageRequiredAsDependency(p.value)}]
				rule = RuleRequiredPropertiesFBCOnly
			case declcfg.PropertyLabelRequired:
				ok = d.cat.asym(o) && deps[o][typed{declcfg.PropertyLabel, p.value}]
				rule = RuleLabelConstraintAsProperty
			case declcfg.PropertyConstraint:
				ok = d.cat.asym(o) && deps[o][typed{declcfg.PropertyConstraint, p.value}]
				rule = RuleLabelConstraintAsProperty
			case declcfg.PropertyPackage:
				ok = d.cat.asym(o) && !hasType(props[o], declcfg.PropertyPackage)
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
func (d *differ) dependencies(path string, props, deps [2]map[typed]bool) {
	var depOnly [2][]typed
	for s := range 2 {
		o := 1 - s
		for _, p := range sortedOnly(deps[s], deps[o], typedLess) {
			var ok bool
			switch p.typ {
			case declcfg.PropertyLabel:
				ok = d.cat.asym(s) && props[o][typed{declcfg.PropertyLabelRequired, p.value}]
			case declcfg.PropertyConstraint:
				ok = d.cat.asym(s) && props[o][typed{declcfg.PropertyConstraint, p.value}]
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

// hasType reports whether m holds a value of type typ.
func hasType(m map[typed]bool, typ string) bool {
	for t := range m {
		if t.typ == typ {
			return true
		}
	}
	return false
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
