package unpack

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/operator-catalog/olmcat/internal/manifest"
)

// maxEntrySize bounds a decompressed entry; a ConfigMap holds at most 1 MiB
// of compressed text, so anything larger than this is a gzip bomb.
const maxEntrySize = 64 << 20

// decodeEntries returns the ConfigMap's entries, sorted by key, with their
// bundle paths. With olm.contentEncoding gzip+base64 the binaryData values
// are base64 text of gzipped files; otherwise data holds text files and
// binaryData raw bytes.
func decodeEntries(cm *corev1.ConfigMap) ([]File, error) {
	paths, err := entryPaths(cm)
	if err != nil {
		return nil, err
	}
	gzipped := false
	switch enc := cm.Annotations[AnnotationContentEncoding]; enc {
	case "":
	case EncodingGzipBase64:
		gzipped = true
	default:
		return nil, fmt.Errorf("unknown %s %q", AnnotationContentEncoding, enc)
	}
	var files []File
	for k, v := range cm.Data {
		files = append(files, File{Key: k, Content: []byte(v)})
	}
	for k, v := range cm.BinaryData {
		if gzipped {
			content, err := gunzipBase64(v)
			if err != nil {
				return nil, fmt.Errorf("key %q: %w", k, err)
			}
			v = content
		}
		files = append(files, File{Key: k, Content: v})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Key < files[j].Key })
	for i := range files {
		files[i].Path = paths(files[i].Key, files[i].Content)
	}
	return files, nil
}

// entryPaths returns the function giving each key its bundle path: the
// AnnotationPaths map when Extract wrote one, else manifests/<key>, except
// that metadata files without a kind go to metadata/: opm's
// dependencies.yaml and properties.yaml, and the annotations.yaml of a
// ConfigMap made with kubectl create configmap --from-file=<bundle>/metadata.
func entryPaths(cm *corev1.ConfigMap) (func(key string, content []byte) string, error) {
	raw, ok := cm.Annotations[AnnotationPaths]
	if !ok {
		return func(key string, content []byte) string {
			if key == "dependencies.yaml" || key == "properties.yaml" || key == AnnotationsFile {
				if tm, err := manifest.Identify(content); err == nil && tm.Kind == "" {
					return "metadata/" + key
				}
			}
			return "manifests/" + key
		}, nil
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		return nil, fmt.Errorf("annotation %s: %w", AnnotationPaths, err)
	}
	seen := map[string]string{}
	for k, p := range m {
		if !validBundlePath(p) {
			return nil, fmt.Errorf("annotation %s: key %q maps to %q, not manifests/<name> or metadata/<name>", AnnotationPaths, k, p)
		}
		if other, dup := seen[p]; dup {
			return nil, fmt.Errorf("annotation %s: keys %q and %q both map to %q", AnnotationPaths, other, k, p)
		}
		seen[p] = k
	}
	return func(key string, _ []byte) string {
		if p, ok := m[key]; ok {
			return p
		}
		return "manifests/" + key
	}, nil
}

// validBundlePath accepts manifests/<name> and metadata/<name> with a plain
// file name; metadata/annotations.yaml is never an entry (its annotations
// are the ConfigMap's).
func validBundlePath(p string) bool {
	dir, name := path.Split(p)
	if name == "" || name == "." || name == ".." || strings.Contains(name, "\\") {
		return false
	}
	switch dir {
	case "manifests/":
		return true
	case "metadata/":
		return name != AnnotationsFile
	}
	return false
}

func isMetadataPath(p string) bool { return strings.HasPrefix(p, "metadata/") }

func gunzipBase64(v []byte) ([]byte, error) {
	raw := make([]byte, base64.StdEncoding.DecodedLen(len(v)))
	n, err := base64.StdEncoding.Decode(raw, v)
	if err != nil {
		return nil, fmt.Errorf("not base64: %w", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw[:n]))
	if err != nil {
		return nil, fmt.Errorf("not gzip: %w", err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, maxEntrySize+1))
	if err != nil {
		return nil, fmt.Errorf("gunzip: %w", err)
	}
	if len(out) > maxEntrySize {
		return nil, fmt.Errorf("decompresses to more than %d bytes", maxEntrySize)
	}
	return out, nil
}
