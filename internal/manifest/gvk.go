package manifest

import "encoding/json"

// GVK is a Kubernetes group, version and kind. Its JSON form is the
// Kubernetes one (group, version, kind), as in a CSV's nativeAPIs.
type GVK struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// API is an API a bundle provides or requires: its GVK plus the resource
// plural (empty when unknown).
type API struct {
	GVK
	Plural string
}

// DedupAPIs drops APIs whose GVK appeared before, in place, keeping the
// first; nil when nothing is left.
func DedupAPIs(in []API) []API {
	seen := make(map[GVK]bool, len(in))
	out := in[:0]
	for _, a := range in {
		if seen[a.GVK] {
			continue
		}
		seen[a.GVK] = true
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// String is "group/version/kind".
func (g GVK) String() string { return g.Group + "/" + g.Version + "/" + g.Kind }

// PropertyValue is the value of an olm.gvk property (or dependency) for
// g as opm wrote it, byte for byte: compact, keys group, kind, version.
func (g GVK) PropertyValue() string {
	b, _ := json.Marshal(struct {
		Group   string `json:"group"`
		Kind    string `json:"kind"`
		Version string `json:"version"`
	}{g.Group, g.Kind, g.Version})
	return string(b)
}
