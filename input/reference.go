package input

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/operator-catalog/olmcat/image"
)

// reference is an argument read as an image: a registry reference, or a
// local OCI layout or archive of one. The zero value is no image.
type reference struct {
	image  name.Reference
	layout image.Layout
}

func (r reference) isImage() bool { return r.image != nil || r.layout.Path != "" }

// readReference is the one rule every command reads an argument by:
// docker://REF is always a registry image, oci:DIR[:REF] and
// oci-archive:FILE[:REF] always a local layout image; a path that exists
// wins (the note says so if the argument also reads as a
// registry-qualified reference); otherwise an argument whose first
// component names a registry (has a dot or a port, or is localhost) and
// that parses as a reference is an image. Anything else is a path (the
// zero reference), and stat errors are the caller's to report.
// Unqualified names such as foo:v1 are never images: they would silently
// resolve to Docker Hub (opm rejects them too).
func readReference(arg string) (ref reference, note string, err error) {
	if l, ok := image.ParseLayout(arg); ok {
		if l.Path == "" {
			return reference{}, "", fmt.Errorf("%s: want %sDIR[:REF] or %sFILE[:REF]", arg, image.LayoutPrefix, image.ArchivePrefix)
		}
		return reference{layout: l}, "", nil
	}
	if rest, ok := strings.CutPrefix(arg, image.ImagePrefix); ok {
		r, err := name.ParseReference(rest)
		if err != nil {
			return reference{}, "", fmt.Errorf("image reference %q: %w", rest, err)
		}
		return reference{image: r}, "", nil
	}
	_, statErr := os.Lstat(arg)
	qualified := looksQualified(arg)
	if statErr == nil || !errors.Is(statErr, fs.ErrNotExist) || !qualified {
		if statErr == nil && qualified {
			if _, err := name.ParseReference(arg); err == nil {
				note = fmt.Sprintf("%s is a local path and also reads as an image reference; using the local path (write %s%s for the image)", arg, image.ImagePrefix, arg)
			}
		}
		return reference{}, note, nil
	}
	r, err := name.ParseReference(arg)
	if err != nil {
		return reference{}, "", fmt.Errorf("%s: no such file or directory, and not an image reference: %w", arg, err)
	}
	return reference{image: r}, "", nil
}

// looksQualified reports whether s starts with a registry host: a first
// path component holding a dot or a port, or localhost, followed by a
// repository.
func looksQualified(s string) bool {
	host, rest, ok := strings.Cut(s, "/")
	if !ok || rest == "" || host == "" || host == "." || host == ".." {
		return false
	}
	return strings.ContainsAny(host, ".:") || host == "localhost"
}

// dirName is the folder name an image's catalog is unpacked to by
// default: the last component of its repository, then its tag or the
// first 12 hex digits of its digest (index:v4.14 -> index-v4.14); for a
// layout, its file name without extension, then the tag of the name given
// in it, or "catalog" (never the layout's own name).
func (r reference) dirName() string {
	if l := r.layout; l.Path != "" {
		base := strings.TrimSuffix(filepath.Base(l.Path), filepath.Ext(l.Path))
		if l.Ref == "" {
			return base + "-catalog"
		}
		ref := l.Ref[strings.LastIndex(l.Ref, "/")+1:]
		if i := strings.LastIndexAny(ref, ":@"); i >= 0 {
			ref = ref[i+1:]
		}
		return base + "-" + ref
	}
	repo := r.image.Context().RepositoryStr()
	base := repo[strings.LastIndex(repo, "/")+1:]
	id := r.image.Identifier()
	if h, ok := strings.CutPrefix(id, "sha256:"); ok && len(h) >= 12 {
		id = h[:12]
	}
	return base + "-" + id
}
