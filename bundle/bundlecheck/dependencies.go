package bundlecheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/operator-catalog/olmcat/declcfg"
)

// maxConstraintSize bounds an olm.constraint value as OLM's parser does
// (its nesting cannot be limited otherwise).
const maxConstraintSize = 2 << 16

// checkDependencies checks each entry of the dependencies file with opm's
// messages.
func checkDependencies(c collector, file string, deps []dependency) {
	for _, d := range deps {
		var msgs []string
		switch d.Type {
		case declcfg.PropertyGVK:
			var v gvkValue
			if err := json.Unmarshal(d.Value, &v); err != nil {
				msgs = []string{couldNotParse(d.Type, err)}
				break
			}
			msgs = v.check()
		case declcfg.PropertyPackage:
			var v struct {
				PackageName string `json:"packageName"`
				Version     string `json:"version"`
			}
			if err := json.Unmarshal(d.Value, &v); err != nil {
				msgs = []string{couldNotParse(d.Type, err)}
				break
			}
			msgs = checkPackageRange(v.PackageName, v.Version)
		case declcfg.PropertyLabel:
			var v struct {
				Label string `json:"label"`
			}
			if err := json.Unmarshal(d.Value, &v); err != nil {
				msgs = []string{couldNotParse(d.Type, err)}
			} else if v.Label == "" {
				msgs = []string{"Label information is missing"}
			}
		case declcfg.PropertyConstraint:
			msgs = checkConstraintValue(d.Value)
		default:
			msgs = []string{fmt.Sprintf("unsupported dependency type %s", d.Type)}
		}
		for _, m := range msgs {
			c.add(file, m)
		}
	}
}

func couldNotParse(typ string, err error) string {
	return fmt.Sprintf("couldn't parse dependency of type %s: %v", typ, err)
}

type gvkValue struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

func (g gvkValue) check() []string {
	var msgs []string
	if g.Group == "" {
		msgs = append(msgs, "API Group is empty")
	}
	if g.Version == "" {
		msgs = append(msgs, "API Version is empty")
	}
	if g.Kind == "" {
		msgs = append(msgs, "API Kind is empty")
	}
	return msgs
}

func checkPackageRange(name, versionRange string) []string {
	var msgs []string
	if name == "" {
		msgs = append(msgs, "Package name is empty")
	}
	if versionRange == "" {
		msgs = append(msgs, "Package version is empty")
	} else if _, err := semver.ParseRange(versionRange); err != nil {
		msgs = append(msgs, "Invalid semver format version")
	}
	return msgs
}

// constraint is an olm.constraint value: exactly one of a CEL rule, a GVK,
// a package range or a compound (all, any, not; none is not's deprecated
// spelling).
type constraint struct {
	FailureMessage string `json:"failureMessage,omitempty"`
	Cel            *struct {
		Rule string `json:"rule"`
	} `json:"cel,omitempty"`
	GVK     *gvkValue `json:"gvk,omitempty"`
	Package *struct {
		PackageName  string `json:"packageName"`
		VersionRange string `json:"versionRange"`
	} `json:"package,omitempty"`
	All  *compound `json:"all,omitempty"`
	Any  *compound `json:"any,omitempty"`
	Not  *compound `json:"not,omitempty"`
	None *compound `json:"none,omitempty"`
}

type compound struct {
	Constraints []constraint `json:"constraints"`
}

// checkConstraintValue parses an olm.constraint value strictly (unknown
// fields are errors, as in OLM's parser). opm only looks for a CEL rule
// and calls every GVK, package or compound constraint "The CEL field is
// missing"; those are checked here instead. CEL rules are not compiled.
func checkConstraintValue(raw json.RawMessage) []string {
	if len(raw) > maxConstraintSize {
		return []string{fmt.Sprintf("olm.constraint value is greater than max constraint size %d bytes", maxConstraintSize)}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var c constraint
	if err := dec.Decode(&c); err != nil {
		return []string{couldNotParse(declcfg.PropertyConstraint, err)}
	}
	return c.check()
}

func (c constraint) check() []string {
	var set []string
	for _, f := range []struct {
		name string
		has  bool
	}{{"cel", c.Cel != nil}, {"gvk", c.GVK != nil}, {"package", c.Package != nil}, {"all", c.All != nil}, {"any", c.Any != nil}, {"not", c.Not != nil}, {"none", c.None != nil}} {
		if f.has {
			set = append(set, f.name)
		}
	}
	switch {
	case len(set) == 0:
		return []string{"The CEL field is missing"}
	case len(set) > 1:
		return []string{fmt.Sprintf("olm.constraint must have exactly one of cel, gvk, package, all, any, not (has %s)", strings.Join(set, ", "))}
	}
	switch {
	case c.Cel != nil:
		if strings.TrimSpace(c.Cel.Rule) == "" {
			return []string{"The CEL expression is missing"}
		}
		return nil
	case c.GVK != nil:
		return c.GVK.check()
	case c.Package != nil:
		return checkPackageRange(c.Package.PackageName, c.Package.VersionRange)
	}
	comp := c.All
	for _, x := range []*compound{c.Any, c.Not, c.None} {
		if x != nil {
			comp = x
		}
	}
	if len(comp.Constraints) == 0 {
		return []string{fmt.Sprintf("olm.constraint %s has no constraints", set[0])}
	}
	var msgs []string
	for _, sub := range comp.Constraints {
		msgs = append(msgs, sub.check()...)
	}
	return msgs
}
