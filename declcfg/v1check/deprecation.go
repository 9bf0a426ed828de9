package v1check

import (
	"fmt"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg"
)

// Deprecation is what OLM v1 reports deprecated of a package: the
// messages of its surviving olm.deprecations blob (entries without a
// message dropped, as operator-controller drops them).
type Deprecation struct {
	Package  string               `json:"package,omitempty"`
	Channels []ChannelDeprecation `json:"channels,omitempty"`
	// Bundle is the message of the picked bundle (BundleDeprecated once
	// it is installed).
	Bundle string `json:"bundle,omitempty"`
	// Blobs counts the package's olm.deprecations blobs (only the last
	// counts).
	Blobs int `json:"blobs"`
}

// ChannelDeprecation is a deprecated channel's message.
type ChannelDeprecation struct {
	Channel string `json:"channel"`
	Message string `json:"message"`
}

// surviving is the olm.deprecations blob operator-controller keeps: the
// last one (nil: none).
func surviving(deps []declcfg.Deprecation) *declcfg.Deprecation {
	if len(deps) == 0 {
		return nil
	}
	return &deps[len(deps)-1]
}

// deprecatedBundles are the bundles dep deprecates.
func deprecatedBundles(dep *declcfg.Deprecation) map[string]bool {
	out := map[string]bool{}
	if dep == nil {
		return out
	}
	for _, e := range dep.Entries {
		if e.Reference.Schema == declcfg.SchemaBundle {
			out[e.Reference.Name] = true
		}
	}
	return out
}

// deprecations fills r.Deprecation and its notes from the package's
// olm.deprecations blobs, dep the surviving one.
func (r *Report) deprecations(all []declcfg.Deprecation, dep *declcfg.Deprecation) {
	if dep == nil {
		return
	}
	d := &Deprecation{Blobs: len(all)}
	for _, e := range dep.Entries {
		if e.Message == "" {
			continue
		}
		switch e.Reference.Schema {
		case declcfg.SchemaPackage:
			d.Package = e.Message
		case declcfg.SchemaChannel:
			d.Channels = append(d.Channels, ChannelDeprecation{Channel: e.Reference.Name, Message: e.Message})
		case declcfg.SchemaBundle:
			if r.V1Pick != nil && e.Reference.Name == r.V1Pick.Bundle {
				d.Bundle = e.Message
			}
		}
	}
	if d.Package == "" && len(d.Channels) == 0 && d.Bundle == "" && d.Blobs < 2 {
		return
	}
	r.Deprecation = d
	var what []string
	if d.Package != "" {
		what = append(what, "package")
	}
	for _, c := range d.Channels {
		what = append(what, "channel "+c.Channel)
	}
	if d.Bundle != "" {
		what = append(what, "bundle "+r.V1Pick.Bundle)
	}
	if len(what) > 0 {
		r.Add(RuleDeprecated, "", "deprecated: "+strings.Join(what, ", "), "")
	}
	if d.Blobs > 1 {
		r.Add(RuleSeveralDeprecations, "", fmt.Sprintf("%d olm.deprecations blobs: OLM v1 reads only the last one", d.Blobs), "")
	}
}
