package unpack

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/unpack/jobtool"
)

// Manifest is what a ConfigMap holds: a bundle and, for bundles in the
// older package-manifest layout, the PackageManifest that came with it.
type Manifest struct {
	Bundle          *Bundle
	PackageManifest *PackageManifest
}

// Bundle is a bundle loaded from a ConfigMap.
type Bundle struct {
	// Name is the CSV's metadata.name.
	Name string
	// Image is the bundle image recorded in olm.sourceImage, if any.
	Image string
	// Annotations are the bundle's annotations (those of its
	// annotations.yaml): the ConfigMap's annotations less the ones Extract
	// adds.
	Annotations map[string]string
	// CSV is the ClusterServiceVersion; CRDs and Others are the remaining
	// objects; Objects is all of them in key order.
	CSV     *Object
	CRDs    []*Object
	Others  []*Object
	Objects []*Object
	// Files are the decoded entries, in key order.
	Files []File
}

// File is one ConfigMap entry, decoded.
type File struct {
	Key     string // ConfigMap key
	Path    string // bundle path: manifests/<name> or metadata/<name>
	Content []byte
}

// Object is one Kubernetes object of a bundle.
type Object struct {
	Key        string // the ConfigMap key of the file it came from
	APIVersion string
	Kind       string
	Name       string
	// JSON is the object's document converted to JSON.
	JSON json.RawMessage
}

// PackageManifest is the package description of the package-manifest
// layout (a *.package.yaml file): no apiVersion or kind, identified by its
// packageName.
type PackageManifest struct {
	PackageName    string           `json:"packageName"`
	Channels       []PackageChannel `json:"channels"`
	DefaultChannel string           `json:"defaultChannel,omitempty"`
}

// PackageChannel is one channel of a PackageManifest.
type PackageChannel struct {
	Name       string `json:"name"`
	CurrentCSV string `json:"currentCSV"`
}

// Load reads a bundle from a ConfigMap written by Extract or by opm:
// entries plain or gzip+base64 (olm.contentEncoding), each file identified
// by its content, not its key. Every YAML or JSON document of a manifest
// must be a Kubernetes object (apiVersion and kind) or a PackageManifest;
// anything else, and any entry that does not decode, is an error naming
// the key (opm skipped such entries without a word). Exactly one
// ClusterServiceVersion is required.
func Load(cm *corev1.ConfigMap) (*Manifest, error) {
	if cm == nil {
		return nil, errors.New("load bundle: no configmap")
	}
	where := cm.Namespace + "/" + cm.Name
	files, err := decodeEntries(cm)
	if err != nil {
		return nil, fmt.Errorf("configmap %s: %w", where, err)
	}
	ann := bundleAnnotations(cm.Annotations)
	files, err = liftAnnotationsFile(files, ann)
	if err != nil {
		return nil, fmt.Errorf("configmap %s: %w", where, err)
	}
	m := &Manifest{Bundle: &Bundle{Files: files, Annotations: ann, Image: cm.Annotations[AnnotationSourceImage]}}
	for _, f := range files {
		if err := m.add(f); err != nil {
			return nil, fmt.Errorf("configmap %s key %q: %w", where, f.Key, err)
		}
	}
	b := m.Bundle
	if b.CSV == nil {
		return nil, fmt.Errorf("configmap %s: no ClusterServiceVersion among %d objects", where, len(b.Objects))
	}
	b.Name = b.CSV.Name
	return m, nil
}

// liftAnnotationsFile takes a metadata/annotations.yaml entry (a
// ConfigMap made from a bundle's metadata directory rather than by Extract)
// out of files and adds its annotations to ann; the ConfigMap's own
// annotations win.
func liftAnnotationsFile(files []File, ann map[string]string) ([]File, error) {
	for i, f := range files {
		if f.Path != "metadata/"+AnnotationsFile {
			continue
		}
		fromFile, err := jobtool.ParseAnnotations(f.Content, "key "+strconv.Quote(f.Key))
		if err != nil {
			return nil, err
		}
		for k, v := range fromFile {
			if _, ok := ann[k]; !ok {
				ann[k] = v
			}
		}
		return slices.Delete(files, i, i+1), nil
	}
	return files, nil
}

// add sorts one file into the manifest.
func (m *Manifest) add(f File) error {
	if isMetadataPath(f.Path) {
		var v any
		if err := yaml.Unmarshal(f.Content, &v); err != nil {
			return fmt.Errorf("metadata file %s is not YAML: %w", f.Path, err)
		}
		return nil
	}
	docs, err := splitDocuments(f.Content)
	if err != nil {
		return err
	}
	for i, doc := range docs {
		if err := m.addDocument(f.Key, doc); err != nil {
			if len(docs) > 1 {
				return fmt.Errorf("document %d: %w", i+1, err)
			}
			return err
		}
	}
	return nil
}

func (m *Manifest) addDocument(key string, doc []byte) error {
	tm, err := manifest.Identify(doc)
	if err != nil {
		return err
	}
	if tm.Kind == "" || tm.APIVersion == "" {
		var pm PackageManifest
		if json.Unmarshal(doc, &pm) == nil && pm.PackageName != "" && tm.Kind == "" {
			if m.PackageManifest != nil {
				return fmt.Errorf("second PackageManifest (package %s)", pm.PackageName)
			}
			m.PackageManifest = &pm
			return nil
		}
		return errors.New("not a Kubernetes object: apiVersion or kind missing")
	}
	var meta struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(doc, &meta); err != nil {
		return fmt.Errorf("%s metadata: %w", tm.Kind, err)
	}
	obj := &Object{Key: key, APIVersion: tm.APIVersion, Kind: tm.Kind, Name: meta.Metadata.Name, JSON: doc}
	b := m.Bundle
	b.Objects = append(b.Objects, obj)
	switch tm.Kind {
	case manifest.KindCSV:
		if b.CSV != nil {
			return fmt.Errorf("second ClusterServiceVersion %s (first %s in key %q)", obj.Name, b.CSV.Name, b.CSV.Key)
		}
		b.CSV = obj
	case manifest.KindCRD:
		b.CRDs = append(b.CRDs, obj)
	default:
		b.Others = append(b.Others, obj)
	}
	return nil
}

// splitDocuments returns the non-empty YAML (or JSON) documents of a file,
// each converted to JSON.
func splitDocuments(content []byte) ([][]byte, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(content)))
	var docs [][]byte
	for n := 1; ; n++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", n, err)
		}
		js, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, fmt.Errorf("document %d does not decode: %w", n, err)
		}
		if bytes.Equal(bytes.TrimSpace(js), []byte("null")) {
			continue // empty document: only comments or whitespace
		}
		docs = append(docs, js)
	}
	if len(docs) == 0 {
		return nil, errors.New("no object in entry")
	}
	return docs, nil
}

// bundleAnnotations drops the annotations Extract adds from a ConfigMap's
// annotations; what remains came from the bundle's annotations.yaml. An
// empty one of opm's six is one the bundle lacks: opm's writer sets each,
// to "" when annotations.yaml has none.
func bundleAnnotations(ann map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range ann {
		switch k {
		case AnnotationSourceImage, AnnotationContentEncoding, AnnotationPaths:
			continue
		}
		if v == "" && slices.Contains(jobtool.BundleAnnotationKeys, k) {
			continue
		}
		out[k] = v
	}
	return out
}
