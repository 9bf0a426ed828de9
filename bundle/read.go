package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/manifest"
)

// Metadata is what a bundle's metadata/ directory says: its
// annotations, dependencies and extra properties.
type Metadata struct {
	// Annotations are the annotations: map of the annotations file.
	Annotations map[string]string
	// Dependencies are the entries of the dependencies file.
	Dependencies []declcfg.Property
	// Properties are the entries of the properties file.
	Properties []declcfg.Property
}

// Package is the bundle's package name.
func (m Metadata) Package() string { return m.Annotations[annotation.Package] }

// Channels are the channels the bundle is published in, in order.
func (m Metadata) Channels() []string {
	var out []string
	for _, c := range strings.Split(m.Annotations[annotation.Channels], ",") {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// DefaultChannel is the default channel annotation ("" when absent).
func (m Metadata) DefaultChannel() string { return m.Annotations[annotation.DefaultChannel] }

// Option configures FromFS.
type Option func(*options)

type options struct {
	image       string
	csvMetadata bool
	warn        func(string)
}

// WithImage sets the blob's image field to ref exactly as given (no
// resolution) and adds it to relatedImages, as opm render of a bundle
// image does. Without it image is "", as for a bundle directory.
func WithImage(ref string) Option { return func(o *options) { o.image = ref } }

// WithCSVMetadata replaces the olm.bundle.object properties with one
// olm.csv.metadata property (--migrate-level bundle-object-to-csv-metadata).
func WithCSVMetadata(b bool) Option { return func(o *options) { o.csvMetadata = b } }

// WithWarnings receives a message for each manifest file skipped
// because it does not decode (opm warns and skips them too).
func WithWarnings(f func(string)) Option { return func(o *options) { o.warn = f } }

// FromFS reads a bundle in the registry+v1 bundle format, manifests/
// and metadata/ at the root of fsys, and returns the olm.bundle blob opm
// render gives for it: name from the CSV, package from the annotations,
// properties (olm.package, olm.gvk of the provided APIs, olm.gvk.required
// of the CSV's required APIs and the olm.gvk dependencies,
// olm.package.required of the olm.package dependencies, other dependencies
// and the properties file and olm.properties CSV annotation verbatim, then
// one olm.bundle.object per manifest, or olm.csv.metadata) sorted by type
// and value, and relatedImages (the CSV's, the deployment containers' and
// the bundle image) sorted by image. The metadata is returned for callers
// that place the bundle in channels.
func FromFS(fsys fs.FS, opts ...Option) (declcfg.Bundle, Metadata, error) {
	o := options{warn: func(string) {}}
	for _, opt := range opts {
		opt(&o)
	}
	meta, err := ReadMetadata(fsys)
	if err != nil {
		return declcfg.Bundle{}, meta, err
	}
	objects, err := readManifests(fsys, o.warn)
	if err != nil {
		return declcfg.Bundle{}, meta, err
	}
	i := manifest.FindCSV(objects)
	if i < 0 {
		return declcfg.Bundle{}, meta, errors.New("bundle manifests/: no ClusterServiceVersion among the manifests (no csv in bundle)")
	}
	csv, err := manifest.ParseCSV(objects[i])
	if err != nil {
		return declcfg.Bundle{}, meta, fmt.Errorf("bundle manifests/: CSV: %w", err)
	}
	b := declcfg.Bundle{Schema: declcfg.SchemaBundle, Name: csv.Name(), Package: meta.Package(), Image: o.image}
	if b.Name == "" {
		return declcfg.Bundle{}, meta, errors.New("bundle manifests/: the CSV has no metadata.name")
	}
	if b.Properties, err = bundleProperties(csv, objects, meta, o.csvMetadata); err != nil {
		return declcfg.Bundle{}, meta, fmt.Errorf("bundle %s: %w", b.Name, err)
	}
	if b.RelatedImages, err = bundleRelatedImages(csv, o.image); err != nil {
		return declcfg.Bundle{}, meta, fmt.Errorf("bundle %s: %w", b.Name, err)
	}
	for _, obj := range objects {
		b.Objects = append(b.Objects, string(obj))
	}
	b.CsvJSON = string(objects[i])
	return b, meta, nil
}

// ReadMetadata reads metadata/. As opm does, every file is tried as
// the annotations, the dependencies and the properties file (the content
// decides, not the name); the first non-empty match of each wins. No
// annotations, or annotations without a package, is an error.
func ReadMetadata(fsys fs.FS) (Metadata, error) {
	var m Metadata
	ents, err := fs.ReadDir(fsys, "metadata")
	if err != nil {
		return m, fmt.Errorf("bundle metadata/: %w", err)
	}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		p := path.Join("metadata", e.Name())
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return m, fmt.Errorf("bundle %s: %w", p, err)
		}
		var doc struct {
			Annotations  map[string]string  `json:"annotations"`
			Dependencies []declcfg.Property `json:"dependencies"`
			Properties   []declcfg.Property `json:"properties"`
		}
		if err := yaml.Unmarshal(data, &doc); err != nil {
			continue // not one of the three files
		}
		if m.Annotations == nil && len(doc.Annotations) > 0 {
			m.Annotations = doc.Annotations
		}
		if m.Dependencies == nil && len(doc.Dependencies) > 0 {
			m.Dependencies = doc.Dependencies
		}
		if m.Properties == nil && len(doc.Properties) > 0 {
			m.Properties = doc.Properties
		}
	}
	if m.Annotations == nil {
		return m, errors.New("bundle metadata/: no annotations file (a file with an annotations: map, usually metadata/annotations.yaml)")
	}
	if m.Package() == "" {
		return m, fmt.Errorf("bundle metadata/: the annotations have no %s", annotation.Package)
	}
	return m, nil
}

// readManifests decodes the top-level regular files of manifests/ (no
// subdirectories, no dot-files), in name order, each one object, to
// compact JSON with sorted keys (how opm stores objects).
func readManifests(fsys fs.FS, warn func(string)) ([][]byte, error) {
	ents, err := fs.ReadDir(fsys, "manifests")
	if err != nil {
		return nil, fmt.Errorf("bundle manifests/: %w", err)
	}
	var objects [][]byte
	for _, e := range ents {
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := path.Join("manifests", e.Name())
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, fmt.Errorf("bundle %s: %w", p, err)
		}
		obj, err := canonicalObject(data)
		if err != nil {
			warn(fmt.Sprintf("bundle %s: skipped: %v", p, err))
			continue
		}
		objects = append(objects, obj)
	}
	if len(objects) == 0 {
		return nil, errors.New("bundle manifests/: no bundle objects found")
	}
	return objects, nil
}

// canonicalObject turns a YAML or JSON object into compact JSON with
// sorted keys, numbers kept as written. YAMLToJSON's output is already
// that: json.Marshal of the decoded document (keys sorted, numbers as
// the YAML resolved them), which a decode and a json.Marshal more give
// back byte for byte, so it is kept as it is once its top level is seen
// to be an object with a string kind. The one exception is a string
// with bytes that are not UTF-8 (a !!binary value): json.Marshal writes
// each such byte as the escape \ufffd, and a second json.Marshal would
// write the decoded U+FFFD itself, so output with that escape takes the
// decode and the json.Marshal as before.
func canonicalObject(data []byte) ([]byte, error) {
	if js, ok := plainJSONObject(data); ok {
		return js, nil
	}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, err
	}
	return marshaledObject(js)
}

// marshaledObject is canonicalObject of js, YAMLToJSON's output.
func marshaledObject(js []byte) ([]byte, error) {
	if bytes.Contains(js, []byte(`\ufffd`)) {
		return reencodeObject(js)
	}
	// The top level alone is decoded; the scanner still checks the
	// whole document (its nesting depth too), as decoding all of it did.
	var top map[string]json.RawMessage
	if err := json.Unmarshal(js, &top); err != nil || top == nil {
		return nil, errNotObject
	}
	if k, ok := top["kind"]; !ok || len(k) == 0 || k[0] != '"' {
		return nil, errNoKind
	}
	return js, nil
}

var (
	errNotObject = errors.New("not a Kubernetes object")
	errNoKind    = errors.New("no kind")
)

// reencodeObject decodes the JSON object js and encodes it again.
func reencodeObject(js []byte) ([]byte, error) {
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil || v == nil {
		return nil, errNotObject
	}
	if _, ok := v["kind"].(string); !ok {
		return nil, errNoKind
	}
	return json.Marshal(v)
}
