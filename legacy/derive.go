package legacy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// SplitObjects splits the operatorbundle.bundle column into one raw JSON
// document per manifest, in stored order. opm wrote each object followed
// by '\n'; older writers concatenated them with no separator; both are
// handled. nil for an empty column.
//
// A fast scanner finds where each top-level object ends (tracking strings,
// escapes and nesting) and returns sub-slices of data without copying:
// a 10,000-bundle index holds ~170 MB of objects and a json.Decoder pass
// over them costs seconds. Anything the scanner does not recognise (a
// top-level value that is not an object or array, unbalanced nesting, an
// unterminated string) is handed to a streaming json.Decoder, whose error
// is returned. Every object must still be valid JSON to its consumer:
// callers that decode objects get the decoder's error there.
func SplitObjects(data []byte) ([][]byte, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	if out, ok := scanObjects(data); ok {
		return out, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var out [][]byte
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("object %d: %w", len(out)+1, err)
		}
		if raw[0] != '{' && raw[0] != '[' {
			return out, fmt.Errorf("object %d: a manifest must be a JSON object, found %.20s", len(out)+1, raw)
		}
		out = append(out, []byte(raw))
	}
}

// scanObjects splits data into top-level JSON objects/arrays; ok is false
// when data is not a clean sequence of them.
func scanObjects(data []byte) (out [][]byte, ok bool) {
	i, n := 0, len(data)
	for {
		for i < n && isSpace(data[i]) {
			i++
		}
		if i == n {
			return out, true
		}
		if data[i] != '{' && data[i] != '[' {
			return nil, false
		}
		start, depth := i, 0
		for ; i < n; i++ {
			switch data[i] {
			case '{', '[':
				depth++
				continue
			case '}', ']':
				depth--
				if depth == 0 {
					i++
					out = append(out, data[start:i:i])
					goto next
				}
				if depth < 0 {
					return nil, false
				}
				continue
			case '"':
				// Jump to the closing quote with IndexByte (strings are most
				// of a manifest's bytes): a quote preceded by an odd number
				// of backslashes is escaped.
				for {
					j := bytes.IndexByte(data[i+1:], '"')
					if j < 0 {
						return nil, false
					}
					i += j + 1
					bs := 0
					for k := i - 1; data[k] == '\\'; k-- {
						bs++
					}
					if bs%2 == 0 {
						break
					}
				}
			}
		}
		return nil, false
	next:
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// csvDoc is the part of a ClusterServiceVersion the reader derives
// missing columns and tables from.
type csvDoc struct {
	Metadata struct {
		Name        string         `json:"name"`
		Annotations map[string]any `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		Version       string   `json:"version"`
		Replaces      string   `json:"replaces"`
		Skips         []string `json:"skips"`
		RelatedImages []struct {
			Name  string `json:"name"`
			Image string `json:"image"`
		} `json:"relatedImages"`
		CRDs struct {
			Owned    []crdDesc `json:"owned"`
			Required []crdDesc `json:"required"`
		} `json:"customresourcedefinitions"`
		APIServices struct {
			Owned    []apiServiceDesc `json:"owned"`
			Required []apiServiceDesc `json:"required"`
		} `json:"apiservicedefinitions"`
		Install struct {
			Spec struct {
				Deployments []struct {
					Spec struct {
						Template struct {
							Spec struct {
								Containers     []struct{ Image string } `json:"containers"`
								InitContainers []struct{ Image string } `json:"initContainers"`
							} `json:"spec"`
						} `json:"template"`
					} `json:"spec"`
				} `json:"deployments"`
			} `json:"spec"`
		} `json:"install"`
	} `json:"spec"`
}

type crdDesc struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

type apiServiceDesc struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
	Name    string `json:"name"`
}

func parseCSV(data []byte) (*csvDoc, error) {
	var c csvDoc
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

func (c *csvDoc) annotation(key string) string {
	if s, ok := c.Metadata.Annotations[key].(string); ok {
		return s
	}
	return ""
}

// crdAPI turns a CSV CRD description ("<plural>.<group>") into an API.
func crdAPI(d crdDesc) API {
	plural, group, _ := strings.Cut(d.Name, ".")
	return API{Group: group, Version: d.Version, Kind: d.Kind, Plural: plural}
}

// requiredAPIs are the CRDs and APIServices the CSV requires, in CSV order.
func (c *csvDoc) requiredAPIs() []API {
	var out []API
	for _, d := range c.Spec.CRDs.Required {
		out = append(out, crdAPI(d))
	}
	for _, d := range c.Spec.APIServices.Required {
		out = append(out, API{Group: d.Group, Version: d.Version, Kind: d.Kind, Plural: d.Name})
	}
	return dedupAPIs(out)
}

// providedAPIs are what opm registered as provided: every version of every
// CRD manifest in the bundle plus the CSV's owned APIServices. Without
// bundle objects the CSV's owned CRDs stand in for the CRD manifests.
func (c *csvDoc) providedAPIs(objects [][]byte) []API {
	var out []API
	crds := false
	for _, o := range objects {
		var crd struct {
			Kind string `json:"kind"`
			Spec struct {
				Group string `json:"group"`
				Names struct {
					Kind   string `json:"kind"`
					Plural string `json:"plural"`
				} `json:"names"`
				Version  string `json:"version"`
				Versions []struct {
					Name string `json:"name"`
				} `json:"versions"`
			} `json:"spec"`
		}
		if json.Unmarshal(o, &crd) != nil || crd.Kind != "CustomResourceDefinition" {
			continue
		}
		crds = true
		api := API{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind, Plural: crd.Spec.Names.Plural}
		if len(crd.Spec.Versions) == 0 && crd.Spec.Version != "" {
			api.Version = crd.Spec.Version
			out = append(out, api)
		}
		for _, v := range crd.Spec.Versions {
			api.Version = v.Name
			out = append(out, api)
		}
	}
	if !crds && c != nil {
		for _, d := range c.Spec.CRDs.Owned {
			out = append(out, crdAPI(d))
		}
	}
	if c != nil {
		for _, d := range c.Spec.APIServices.Owned {
			out = append(out, API{Group: d.Group, Version: d.Version, Kind: d.Kind, Plural: d.Name})
		}
	}
	return dedupAPIs(out)
}

// images are the CSV's related images and operator (deployment container
// and init container) images, what migration 1 backfilled.
func (c *csvDoc) images() []string {
	var out []string
	for _, d := range c.Spec.Install.Spec.Deployments {
		for _, ct := range d.Spec.Template.Spec.InitContainers {
			out = append(out, ct.Image)
		}
		for _, ct := range d.Spec.Template.Spec.Containers {
			out = append(out, ct.Image)
		}
	}
	for _, r := range c.Spec.RelatedImages {
		out = append(out, r.Image)
	}
	return dedupStrings(out)
}

// annotationProperties are the entries of the CSV annotation
// olm.properties (a JSON array of {type, value}), values compacted.
func (c *csvDoc) annotationProperties() ([]Property, error) {
	s := c.annotation("olm.properties")
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var entries []struct {
		Type  string          `json:"type"`
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal([]byte(s), &entries); err != nil {
		return nil, fmt.Errorf("annotation olm.properties: %w", err)
	}
	var out []Property
	for _, e := range entries {
		var buf bytes.Buffer
		if err := json.Compact(&buf, e.Value); err != nil {
			return nil, fmt.Errorf("annotation olm.properties: %s value: %w", e.Type, err)
		}
		out = append(out, Property{Type: e.Type, Value: buf.String()})
	}
	return out, nil
}

// findCSV returns the ClusterServiceVersion among objects, or nil.
func findCSV(objects [][]byte) []byte {
	for _, o := range objects {
		var k struct {
			Kind string `json:"kind"`
		}
		if json.Unmarshal(o, &k) == nil && k.Kind == "ClusterServiceVersion" {
			return o
		}
	}
	return nil
}

// gvkValue is the olm.gvk property/dependency value for api, with keys in
// the order opm writes them (group, kind, version).
func gvkValue(a API) string {
	b, _ := json.Marshal(struct {
		Group   string `json:"group"`
		Kind    string `json:"kind"`
		Version string `json:"version"`
	}{a.Group, a.Kind, a.Version})
	return string(b)
}

// packageValue is the olm.package property value.
func packageValue(pkg, version string) string {
	b, _ := json.Marshal(struct {
		PackageName string `json:"packageName"`
		Version     string `json:"version"`
	}{pkg, version})
	return string(b)
}

func dedupAPIs(in []API) []API {
	type key struct{ g, v, k string }
	seen := make(map[key]bool, len(in))
	out := in[:0]
	for _, a := range in {
		k := key{a.Group, a.Version, a.Kind}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func dedupStrings(in []string) []string {
	seen := make(map[string]bool, len(in))
	var out []string
	for _, s := range in {
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// splitSkips splits the comma-joined skips column, dropping empty items.
func splitSkips(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
