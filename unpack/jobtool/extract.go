package jobtool

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	"github.com/operator-catalog/olmcat/bundle/annotation"
)

// ExtractOption configures Extract.
type ExtractOption func(*extractOptions)

type extractOptions struct {
	manifestsDir    string
	annotationsPath string
	gzip            bool
	sourceImage     string
	dataLimit       int
	extra           bool
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

// WithExtraMetadata keeps every annotation of annotations.yaml (opm keeps
// only the six bundle annotations OLM reads) and records which bundle file
// each key holds in AnnotationPaths, so that Load can tell metadata files
// from manifests. Both count against the API server's 256 KiB annotation
// limit.
func WithExtraMetadata(extra bool) ExtractOption {
	return func(o *extractOptions) { o.extra = extra }
}

// Extract writes a bundle directory into the existing ConfigMap
// namespace/name, replacing its data, binaryData and annotations: one
// entry per file of the manifests and metadata directories (except
// annotations.yaml, whose six bundle annotations become the ConfigMap's,
// as in opm), the olm.sourceImage and olm.contentEncoding annotations and,
// WithExtraMetadata, the other bundle annotations and the key-to-file map
// of AnnotationPaths. The bundle is read and sized first: a bundle over
// the data limit, or annotations over the annotation limit, fail before
// the ConfigMap is touched. It
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
	if err := checkAnnotationLimit(annotations); err != nil {
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

// BundleAnnotationKeys are the annotations opm's extract copies from
// annotations.yaml, each set (empty when the file lacks it), in the order
// of opm's writer; the others are dropped.
var BundleAnnotationKeys = []string{
	annotation.Manifests,
	annotation.MediaType,
	annotation.Metadata,
	annotation.Package,
	annotation.Channels,
	annotation.DefaultChannel,
}

// AnnotationLimit is the most bytes an object's annotations may take,
// keys and values together: the API server rejects more.
const AnnotationLimit = 256 << 10

// annotations are the ConfigMap annotations for dir: opm's six bundle
// annotations (all of the bundle's WithExtraMetadata), the source image,
// the content encoding and, WithExtraMetadata, the key-to-file map.
func (o *extractOptions) annotations(dir *bundleDir) (map[string]string, error) {
	ann := make(map[string]string, len(dir.Annotations)+3)
	for _, k := range BundleAnnotationKeys {
		ann[k] = dir.Annotations[k]
	}
	if o.extra {
		for k, v := range dir.Annotations {
			ann[k] = v
		}
	}
	if o.sourceImage != "" {
		ann[AnnotationSourceImage] = o.sourceImage
	}
	if o.gzip {
		ann[AnnotationContentEncoding] = EncodingGzipBase64
	}
	if !o.extra {
		return ann, nil
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

// checkAnnotationLimit fails, naming the biggest annotation, when ann
// would exceed AnnotationLimit (counted as the API server does: the
// lengths of keys and values).
func checkAnnotationLimit(ann map[string]string) error {
	total, biggest := 0, ""
	for k, v := range ann {
		total += len(k) + len(v)
		if biggest == "" || len(k)+len(v) > len(biggest)+len(ann[biggest]) {
			biggest = k
		}
	}
	if total <= AnnotationLimit {
		return nil
	}
	return fmt.Errorf("configmap annotations need %d bytes, over the limit of %d bytes; biggest: %s (%d bytes)",
		total, AnnotationLimit, biggest, len(biggest)+len(ann[biggest]))
}
