package jobtool

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"

	"sigs.k8s.io/yaml"
)

// AnnotationsFile is the bundle metadata file whose annotations describe
// the bundle; Extract copies them into the ConfigMap's annotations instead
// of storing the file.
const AnnotationsFile = "annotations.yaml"

// bundleFile is one file of a bundle directory on its way to a ConfigMap.
type bundleFile struct {
	Path    string // slash path inside the bundle: manifests/x.yaml, metadata/y.yaml
	Key     string // ConfigMap key
	Content []byte
}

// bundleDir is a bundle directory read from disk.
type bundleDir struct {
	Files       []bundleFile
	Annotations map[string]string
}

// readBundleDir reads every file of manifestsDir and every file beside
// annotationsPath (except the annotations file itself), in that order and
// sorted by name, and parses the annotations. Subdirectories are errors: a
// bundle's manifests and metadata are flat.
func readBundleDir(manifestsDir, annotationsPath string) (*bundleDir, error) {
	b := &bundleDir{}
	keys := newKeyAssigner()
	metadataDir := filepath.Dir(annotationsPath)
	for _, dir := range []struct{ disk, prefix string }{{manifestsDir, "manifests"}, {metadataDir, "metadata"}} {
		entries, err := os.ReadDir(dir.disk)
		if err != nil {
			return nil, fmt.Errorf("read bundle %s directory: %w", dir.prefix, err)
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			full := filepath.Join(dir.disk, e.Name())
			if dir.prefix == "metadata" && full == filepath.Clean(annotationsPath) {
				continue
			}
			if e.IsDir() {
				return nil, fmt.Errorf("%s: a bundle's %s directory must not have subdirectories", full, dir.prefix)
			}
			content, err := os.ReadFile(full)
			if err != nil {
				return nil, fmt.Errorf("read bundle file: %w", err)
			}
			b.Files = append(b.Files, bundleFile{
				Path:    path.Join(dir.prefix, e.Name()),
				Key:     keys.assign(e.Name()),
				Content: content,
			})
		}
	}
	if len(b.Files) == 0 {
		return nil, fmt.Errorf("%s: bundle has no manifests", manifestsDir)
	}
	ann, err := readAnnotations(annotationsPath)
	if err != nil {
		return nil, err
	}
	b.Annotations = ann
	return b, nil
}

// readAnnotations parses a bundle's metadata/annotations.yaml.
func readAnnotations(p string) (map[string]string, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("read bundle annotations: %w", err)
	}
	return ParseAnnotations(data, p)
}

// ParseAnnotations parses the content of an annotations.yaml; where names
// it in errors.
func ParseAnnotations(data []byte, where string) (map[string]string, error) {
	var doc struct {
		Annotations map[string]string `json:"annotations"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("parse %s: %w", where, err)
	}
	if len(doc.Annotations) == 0 {
		return nil, fmt.Errorf("%s: no annotations", where)
	}
	return doc.Annotations, nil
}
