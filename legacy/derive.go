package legacy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/operator-catalog/olmcat/internal/jsonscan"
	"github.com/operator-catalog/olmcat/internal/manifest"
)

// SplitObjects splits the operatorbundle.bundle column into one raw JSON
// document per manifest, in stored order. opm wrote each object followed
// by '\n'; older writers concatenated them with no separator; both are
// handled. nil for an empty column.
//
// jsonscan.Objects finds where each top-level object ends and returns
// sub-slices of data without copying (the bundle columns are most of an
// index's bytes; a json.Decoder pass over them would dominate). Anything
// it does not recognise (a top-level value that is not an object or
// array, unbalanced nesting, an unterminated string) is handed to a
// streaming json.Decoder, whose error is returned. Every object must still be valid JSON to its consumer:
// callers that decode objects get the decoder's error there.
func SplitObjects(data []byte) ([][]byte, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	if out, ok := jsonscan.Objects(data); ok {
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

// csvDoc is what the reader derives missing columns and tables from: the
// CSV's fields, decoded once when the CSV is parsed (a CSV whose fields
// do not decode is an error then, not later).
type csvDoc struct {
	csv      *manifest.CSV
	version  string
	replaces string
	skips    []string
	required []API
	imgs     []string
}

func parseCSV(data []byte) (*csvDoc, error) {
	csv, err := manifest.ParseCSV(data)
	if err != nil {
		return nil, err
	}
	c := &csvDoc{csv: csv}
	if c.version, err = csv.Version(); err != nil {
		return nil, err
	}
	if c.replaces, err = csv.Replaces(); err != nil {
		return nil, err
	}
	if c.skips, err = csv.Skips(); err != nil {
		return nil, err
	}
	if c.required, err = csv.RequiredAPIs(); err != nil {
		return nil, err
	}
	if _, err = manifest.ProvidedAPIs(csv, nil); err != nil {
		return nil, err
	}
	if c.imgs, err = csvImages(csv); err != nil {
		return nil, err
	}
	return c, nil
}

// csvImages are the CSV's operator (deployment init container and
// container) images and related images, what migration 1 backfilled.
func csvImages(csv *manifest.CSV) ([]string, error) {
	cts, err := csv.Containers()
	if err != nil {
		return nil, err
	}
	related, err := csv.RelatedImages()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, ct := range cts {
		out = append(out, ct.Image)
	}
	for _, r := range related {
		out = append(out, r.Image)
	}
	return dedupStrings(out), nil
}

// annotation is the string value of a CSV annotation, "" if unset.
func (c *csvDoc) annotation(key string) string { return c.csv.Annotation(key) }

// requiredAPIs are the CRDs and APIServices the CSV requires, in CSV order.
func (c *csvDoc) requiredAPIs() []API { return c.required }

// providedAPIs are what opm registered as provided (manifest.ProvidedAPIs);
// c may be nil, then only the objects count.
func (c *csvDoc) providedAPIs(objects [][]byte) []API {
	var csv *manifest.CSV
	if c != nil {
		csv = c.csv
	}
	apis, _ := manifest.ProvidedAPIs(csv, objects) // parseCSV checked the CSV's fields
	return apis
}

// images are the CSV's operator and related images.
func (c *csvDoc) images() []string { return c.imgs }

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
	if i := manifest.FindCSV(objects); i >= 0 {
		return objects[i]
	}
	return nil
}

// gvkValue is the olm.gvk property/dependency value for api.
func gvkValue(a API) string { return a.GVK.PropertyValue() }

// packageValue is the olm.package property value.
func packageValue(pkg, version string) string {
	b, _ := json.Marshal(struct {
		PackageName string `json:"packageName"`
		Version     string `json:"version"`
	}{pkg, version})
	return string(b)
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
