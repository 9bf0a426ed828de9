package image

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
)

// ImagePrefix forces an argument to be read as an image reference, even
// when a local path of that name exists.
const ImagePrefix = "docker://"

// Input is what a command-line argument names: a local path or an image.
type Input struct {
	// Arg is the argument as given.
	Arg string
	// Image is set when Arg names an image; Path otherwise.
	Image name.Reference
	// Path is the local path (Arg) when Arg is not an image.
	Path string
	// Note explains the choice when Arg could have been either.
	Note string
}

// IsImage reports whether the input is an image reference.
func (in Input) IsImage() bool { return in.Image != nil }

// Classify tells an image reference from a local path the way users
// expect: a path that exists wins (Note says so if the argument also
// reads as a registry-qualified reference); docker://REF is always an
// image; otherwise an argument whose first component names a registry
// (has a dot or a port, or is localhost) and that parses as a reference
// is an image. Anything else is a path, and stat errors are the caller's
// to report. Unqualified names such as foo:v1 are never images: they
// would silently resolve to Docker Hub (opm rejects them too).
func Classify(arg string, opts ...name.Option) (Input, error) {
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
// first 12 hex digits of its digest (index:v4.14 -> index-v4.14).
func DirName(ref name.Reference) string {
	repo := ref.Context().RepositoryStr()
	base := repo[strings.LastIndex(repo, "/")+1:]
	id := ref.Identifier()
	if h, ok := strings.CutPrefix(id, "sha256:"); ok && len(h) >= 12 {
		id = h[:12]
	}
	return base + "-" + id
}
