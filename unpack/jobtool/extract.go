package jobtool

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"time"
)

// ExtractOption configures Extract.
type ExtractOption func(*extractOptions)

type extractOptions struct {
	manifestsDir    string
	annotationsPath string
	gzip            bool
	sourceImage     string
	dataLimit       int
}

// WithBundleDir reads the bundle from dir/manifests and
// dir/metadata/annotations.yaml (the default dir is "/", the root of a
// bundle image).
func WithBundleDir(dir string) ExtractOption {
	return func(o *extractOptions) {
		o.manifestsDir = filepath.Join(dir, "manifests")
		o.annotationsPath = filepath.Join(dir, "metadata", AnnotationsFile)
	}
}

// WithManifestsDir sets the directory holding the bundle's manifests.
func WithManifestsDir(dir string) ExtractOption {
	return func(o *extractOptions) { o.manifestsDir = dir }
}

// WithAnnotationsFile sets the path of the bundle's annotations.yaml; the
// other files of its directory are stored as metadata.
func WithAnnotationsFile(p string) ExtractOption {
	return func(o *extractOptions) { o.annotationsPath = p }
}

// WithGzip stores every file gzipped and base64-encoded in binaryData and
// sets the olm.contentEncoding annotation, as opm's --gzip does.
func WithGzip(gzip bool) ExtractOption {
	return func(o *extractOptions) { o.gzip = gzip }
}

// WithSourceImage records the bundle image in the olm.sourceImage
// annotation.
func WithSourceImage(image string) ExtractOption {
	return func(o *extractOptions) { o.sourceImage = image }
}

// WithDataLimit sets the most bytes the ConfigMap's values may take
// (DefaultDataLimit).
func WithDataLimit(n int) ExtractOption {
	return func(o *extractOptions) { o.dataLimit = n }
}

// Extract writes a bundle directory into the existing ConfigMap
// namespace/name, replacing its data, binaryData and annotations: one
// entry per file of the manifests and metadata directories (except
// annotations.yaml, whose annotations become the ConfigMap's), the
// olm.sourceImage and olm.contentEncoding annotations, and the
// key-to-file map of AnnotationPaths. The bundle is read and sized first:
// a bundle over the data limit fails before the ConfigMap is touched. It
// needs get and update on that ConfigMap only, and returns the number of
// entries written.
func Extract(ctx context.Context, client *ConfigMaps, namespace, name string, opts ...ExtractOption) (int, error) {
	o := extractOptions{dataLimit: DefaultDataLimit}
	WithBundleDir("/")(&o)
	for _, opt := range opts {
		opt(&o)
	}
	dir, err := readBundleDir(o.manifestsDir, o.annotationsPath)
	if err != nil {
		return 0, err
	}
	enc, err := encodeFiles(dir.Files, o.gzip)
	if err != nil {
		return 0, err
	}
	if err := enc.checkLimit(o.dataLimit, o.gzip); err != nil {
		return 0, err
	}
	annotations, err := o.annotations(dir)
	if err != nil {
		return 0, err
	}
	write := func() error {
		cm, err := client.Get(ctx, namespace, name)
		if err != nil {
			return err
		}
		meta, _ := cm["metadata"].(map[string]any)
		if meta == nil {
			return fmt.Errorf("configmap without metadata")
		}
		meta["annotations"] = annotations
		cm["data"], cm["binaryData"] = enc.Data, enc.BinaryData
		_, err = client.Update(ctx, namespace, name, cm)
		return err
	}
	// Another writer between get and update is a conflict: read again.
	for attempt := 1; ; attempt++ {
		err = write()
		if !IsStatus(err, http.StatusConflict) || attempt == conflictRetries {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		return 0, fmt.Errorf("write bundle to configmap %s/%s: %w", namespace, name, err)
	}
	return len(enc.Data) + len(enc.BinaryData), nil
}

// conflictRetries is how often Extract reads and writes on conflicts, as
// client-go's default retry.
const conflictRetries = 5

// annotations are the ConfigMap annotations for dir: the bundle's own
// annotations plus the source image, content encoding and key-to-file map.
func (o *extractOptions) annotations(dir *bundleDir) (map[string]string, error) {
	ann := make(map[string]string, len(dir.Annotations)+3)
	for k, v := range dir.Annotations {
		ann[k] = v
	}
	if o.sourceImage != "" {
		ann[AnnotationSourceImage] = o.sourceImage
	}
	if o.gzip {
		ann[AnnotationContentEncoding] = EncodingGzipBase64
	}
	paths := make(map[string]string, len(dir.Files))
	for _, f := range dir.Files {
		paths[f.Key] = f.Path
	}
	raw, err := json.Marshal(paths)
	if err != nil {
		return nil, err
	}
	ann[AnnotationPaths] = string(raw)
	return ann, nil
}
