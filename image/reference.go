package image

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
)

// ImagePrefix forces an argument to be read as an image reference, even
// when a local path of that name exists.
const ImagePrefix = "docker://"

// LayoutPrefix names an image in a local OCI image layout directory,
// oci:DIR[:REF], and ArchivePrefix one in a tar archive of a layout,
// oci-archive:FILE[:REF] (the transports of podman and skopeo). REF is
// the image's org.opencontainers.image.ref.name (a full reference or a
// tag); it may be left out when the layout holds one image.
const (
	LayoutPrefix  = "oci:"
	ArchivePrefix = "oci-archive:"
)

// Input is what a command-line argument names: a local path or an image.
type Input struct {
	// Arg is the argument as given.
	Arg string
	// Image is set when Arg names an image; Path otherwise.
	Image name.Reference
	// Path is the local path (Arg) when Arg is not an image.
	Path string
	// Layout is the OCI layout directory (or archive, if Archive) of an
	// oci: (oci-archive:) input, and LayoutRef the image named in it.
	Layout, LayoutRef string
	// Archive tells an oci-archive: input.
	Archive bool
	// Note explains the choice when Arg could have been either.
	Note string
}

// IsImage reports whether the input is an image: a registry reference
// or a local OCI layout or archive.
func (in Input) IsImage() bool { return in.Image != nil || in.Layout != "" }

// parseLayout reads oci:DIR[:REF] and oci-archive:FILE[:REF] (the path
// ends at the first colon, as podman reads it).
func parseLayout(arg string) (Input, bool) {
	for _, pre := range []string{LayoutPrefix, ArchivePrefix} {
		if rest, ok := strings.CutPrefix(arg, pre); ok {
			p, ref, _ := strings.Cut(rest, ":")
			return Input{Arg: arg, Layout: p, LayoutRef: ref, Archive: pre == ArchivePrefix}, true
		}
	}
	return Input{}, false
}

// Classify is the one rule every command uses to tell an image from a
// local path: docker://REF is always a registry image, oci:DIR[:REF] and
// oci-archive:FILE[:REF] always a local layout image; a path that exists
// wins (Note says so if the argument also reads as a registry-qualified
// reference); otherwise an argument whose first component names a registry
// (has a dot or a port, or is localhost) and that parses as a reference
// is an image. Anything else is a path, and stat errors are the caller's
// to report. Unqualified names such as foo:v1 are never images: they
// would silently resolve to Docker Hub (opm rejects them too).
func Classify(arg string, opts ...name.Option) (Input, error) {
	if in, ok := parseLayout(arg); ok {
		if in.Layout == "" {
			return Input{}, fmt.Errorf("%s: want %sDIR[:REF] or %sFILE[:REF]", arg, LayoutPrefix, ArchivePrefix)
		}
		return in, nil
	}
	if rest, ok := strings.CutPrefix(arg, ImagePrefix); ok {
		ref, err := name.ParseReference(rest, opts...)
		if err != nil {
			return Input{}, fmt.Errorf("image reference %q: %w", rest, err)
		}
		return Input{Arg: arg, Image: ref}, nil
	}
	_, statErr := os.Lstat(arg)
	qualified := looksQualified(arg)
	if statErr == nil || !errors.Is(statErr, fs.ErrNotExist) || !qualified {
		in := Input{Arg: arg, Path: arg}
		if statErr == nil && qualified {
			if _, err := name.ParseReference(arg, opts...); err == nil {
				in.Note = fmt.Sprintf("%s is a local path and also reads as an image reference; using the local path (write %s%s for the image)", arg, ImagePrefix, arg)
			}
		}
		return in, nil
	}
	ref, err := name.ParseReference(arg, opts...)
	if err != nil {
		return Input{}, fmt.Errorf("%s: no such file or directory, and not an image reference: %w", arg, err)
	}
	return Input{Arg: arg, Image: ref}, nil
}

// ParseTarget parses the reference an image is pushed to or named as in
// a layout: a registry reference, with or without docker://. Pushing to a
// local layout is not a reference (build writes one with its own flag).
func ParseTarget(arg string) (name.Reference, error) {
	if _, ok := parseLayout(arg); ok {
		return nil, fmt.Errorf("%s: a local OCI layout is not a push target", arg)
	}
	rest := strings.TrimPrefix(arg, ImagePrefix)
	ref, err := name.ParseReference(rest)
	if err != nil {
		return nil, fmt.Errorf("image reference %q: %w", rest, err)
	}
	return ref, nil
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

// DirName is the folder name an image's catalog is unpacked to by
// default: the last component of its repository, then its tag or the
// first 12 hex digits of its digest (index:v4.14 -> index-v4.14); for a
// layout, its file name without extension, then the tag of the name given
// in it, or "catalog" (never the layout's own name).
func (in Input) DirName() string {
	if in.Layout != "" {
		base := strings.TrimSuffix(filepath.Base(in.Layout), filepath.Ext(in.Layout))
		if in.LayoutRef == "" {
			return base + "-catalog"
		}
		ref := in.LayoutRef[strings.LastIndex(in.LayoutRef, "/")+1:]
		if i := strings.LastIndexAny(ref, ":@"); i >= 0 {
			ref = ref[i+1:]
		}
		return base + "-" + ref
	}
	ref := in.Image
	repo := ref.Context().RepositoryStr()
	base := repo[strings.LastIndex(repo, "/")+1:]
	id := ref.Identifier()
	if h, ok := strings.CutPrefix(id, "sha256:"); ok && len(h) >= 12 {
		id = h[:12]
	}
	return base + "-" + id
}
