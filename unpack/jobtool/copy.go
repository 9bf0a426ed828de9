package jobtool

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/operator-catalog/olmcat/bundle/annotation"
)

// CopyBundle is the copier the unpack Job runs inside the bundle image
// (which has no shell or cp): it finds the bundle under root (its
// metadata/annotations.yaml, or the first annotations.yaml found walking
// root, skipping /dev, /proc and /sys), and copies the manifests directory
// the annotations name (default manifests/) to dest/manifests and
// annotations.yaml to dest/metadata, as OLM's cpb does; allMetadata copies
// every file of the metadata directory (dependencies.yaml,
// properties.yaml). Only regular files are copied.
func CopyBundle(root, dest string, allMetadata bool) error {
	annotations, err := findAnnotations(root)
	if err != nil {
		return err
	}
	metadataDir := filepath.Dir(annotations)
	manifestsDir := filepath.Join(root, "manifests")
	if ann, err := readAnnotations(annotations); err == nil && ann[annotation.Manifests] != "" {
		manifestsDir = filepath.Join(root, filepath.Clean("/"+ann[annotation.Manifests]))
	}
	if err := copyDir(manifestsDir, filepath.Join(dest, "manifests")); err != nil {
		return err
	}
	if allMetadata {
		return copyDir(metadataDir, filepath.Join(dest, "metadata"))
	}
	if err := os.MkdirAll(filepath.Join(dest, "metadata"), 0o755); err != nil {
		return err
	}
	return CopyFile(annotations, filepath.Join(dest, "metadata", AnnotationsFile), 0o644)
}

func findAnnotations(root string) (string, error) {
	direct := filepath.Join(root, "metadata", AnnotationsFile)
	if st, err := os.Stat(direct); err == nil && st.Mode().IsRegular() {
		return direct, nil
	}
	var found string
	skip := map[string]bool{"dev": true, "proc": true, "sys": true}
	err := fs.WalkDir(os.DirFS(root), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable corners of an image are not the bundle
		}
		if d.IsDir() && skip[p] {
			return fs.SkipDir
		}
		if d.Type().IsRegular() && d.Name() == AnnotationsFile {
			found = filepath.Join(root, filepath.FromSlash(p))
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if found == "" {
		return "", fmt.Errorf("no bundle under %s: no %s found", root, AnnotationsFile)
	}
	return found, nil
}

// copyDir copies the regular files of from (not recursively) into to.
func copyDir(from, to string) error {
	entries, err := os.ReadDir(from)
	if err != nil {
		return fmt.Errorf("read bundle directory: %w", err)
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if err := CopyFile(filepath.Join(from, e.Name()), filepath.Join(to, e.Name()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// CopyFile copies the file from to the new file to with mode perm. The
// unpack Job's util container uses it to copy this binary into the shared
// volume.
func CopyFile(from, to string, perm os.FileMode) error {
	if strings.TrimSpace(to) == "" {
		return errors.New("copy: no destination")
	}
	src, err := os.Open(from)
	if err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return fmt.Errorf("copy %s to %s: %w", from, to, err)
	}
	if err := dst.Close(); err != nil {
		return fmt.Errorf("copy %s to %s: %w", from, to, err)
	}
	return nil
}
