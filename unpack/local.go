package unpack

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing/fstest"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/operator-catalog/olmcat/internal/atomicfile"
	"github.com/operator-catalog/olmcat/internal/manifest"
)

// LocalOption configures WriteLocal.
type LocalOption func(*localOptions)

type localOptions struct {
	name    string
	force   bool
	onSwept func(dir string)
}

// WithBundleName names the bundle, and so the file <root>/<name>.tar.gz
// (default: the ConfigMap's name). It must be a DNS subdomain name, which
// cannot climb out of the root directory.
func WithBundleName(name string) LocalOption {
	return func(o *localOptions) { o.name = name }
}

// WithForce replaces an existing archive.
func WithForce(force bool) LocalOption {
	return func(o *localOptions) { o.force = force }
}

// WithOnSwept has fn called with each temporary directory of an earlier,
// killed write of the same archive that WriteLocal removed.
func WithOnSwept(fn func(dir string)) LocalOption {
	return func(o *localOptions) { o.onSwept = fn }
}

// WriteLocal stores a ConfigMap as a local bundle source (rukpak's "local"
// source): <root>/<bundle-name>.tar.gz holding a manifests directory with
// every entry of the ConfigMap as manifests/<key>. Every document of every
// entry must be a Kubernetes object (apiVersion and kind) and there must be
// at least one. Keys and names that are not plain file names are refused,
// so nothing is written outside root. The archive is written to a temp
// file in root and renamed into place; an existing archive is an error
// unless WithForce. It returns the archive's path.
func WriteLocal(cm *corev1.ConfigMap, root string, opts ...LocalOption) (string, error) {
	if cm == nil {
		return "", errors.New("local bundle: no configmap")
	}
	o := localOptions{name: cm.Name}
	for _, opt := range opts {
		opt(&o)
	}
	where := cm.Namespace + "/" + cm.Name
	if errs := validation.IsDNS1123Subdomain(o.name); len(errs) > 0 {
		return "", fmt.Errorf("bundle name %q: %s", o.name, strings.Join(errs, "; "))
	}
	files, err := decodeEntries(cm)
	if err != nil {
		return "", fmt.Errorf("configmap %s: %w", where, err)
	}
	if len(files) == 0 {
		return "", fmt.Errorf("configmap %s is empty: at least one object is required", where)
	}
	for _, f := range files {
		if err := checkLocalEntry(f); err != nil {
			return "", fmt.Errorf("configmap %s key %q: %w", where, f.Key, err)
		}
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("local bundle root: %w", err)
	}
	dest := filepath.Join(root, o.name+".tar.gz")
	if err := atomicfile.Write(dest, o.force, func(w io.Writer) error { return writeTarGz(w, files) }, atomicfile.OnSwept(o.onSwept)); err != nil {
		return "", err
	}
	return dest, nil
}

// checkLocalEntry refuses keys that are not plain file names and entries
// that are not Kubernetes objects.
func checkLocalEntry(f File) error {
	if errs := validation.IsConfigMapKey(f.Key); len(errs) > 0 || strings.ContainsAny(f.Key, `/\`) {
		return fmt.Errorf("key is not a plain file name: %s", strings.Join(errs, "; "))
	}
	docs, err := splitDocuments(f.Content)
	if err != nil {
		return err
	}
	for i, doc := range docs {
		tm, err := manifest.Identify(doc)
		if err != nil {
			return fmt.Errorf("document %d: %w", i+1, err)
		}
		if tm.APIVersion == "" || tm.Kind == "" {
			return fmt.Errorf("document %d is not a Kubernetes object: apiVersion or kind missing", i+1)
		}
	}
	return nil
}

// writeTarGz writes manifests/ and manifests/<key> for each file, owned by
// root with a fixed time so that the same ConfigMap gives the same bytes.
func writeTarGz(w io.Writer, files []File) error {
	zw := gzip.NewWriter(w)
	tw := tar.NewWriter(zw)
	epoch := time.Unix(0, 0)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: "manifests/", Mode: 0o755, ModTime: epoch, Format: tar.FormatPAX}); err != nil {
		return err
	}
	for _, f := range files {
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: "manifests/" + f.Key, Mode: 0o644, Size: int64(len(f.Content)), ModTime: epoch, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(f.Content); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

// ReadLocal opens an archive WriteLocal wrote as a file system: the
// manifests directory and its files. Entries other than regular files and
// directories, and names that are not clean relative paths, are errors.
func ReadLocal(path string) (fs.FS, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read local bundle: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("read local bundle %s: %w", path, err)
	}
	tr := tar.NewReader(zr)
	fsys := fstest.MapFS{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return fsys, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read local bundle %s: %w", path, err)
		}
		name := strings.TrimSuffix(hdr.Name, "/")
		if !fs.ValidPath(name) || name == "." {
			return nil, fmt.Errorf("read local bundle %s: entry %q is not a clean relative path", path, hdr.Name)
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			fsys[name] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
		case tar.TypeReg:
			data, err := io.ReadAll(io.LimitReader(tr, maxEntrySize+1))
			if err != nil {
				return nil, fmt.Errorf("read local bundle %s: %w", path, err)
			}
			if len(data) > maxEntrySize {
				return nil, fmt.Errorf("read local bundle %s: entry %s is over %d bytes", path, name, maxEntrySize)
			}
			fsys[name] = &fstest.MapFile{Data: data, Mode: 0o644}
		default:
			return nil, fmt.Errorf("read local bundle %s: entry %s is not a file or directory", path, name)
		}
	}
}
