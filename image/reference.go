package image

import (
	"fmt"
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

// Layout is an image in a local OCI image layout, named oci:DIR[:REF], or
// in a tar archive of one, oci-archive:FILE[:REF].
type Layout struct {
	// Arg is the argument as given.
	Arg string
	// Path is the layout directory (or archive file, if Archive).
	Path string
	// Ref is the image named in it (a full reference or a tag), empty
	// when the layout holds one image.
	Ref string
	// Archive tells an oci-archive: input.
	Archive bool
}

// ParseLayout reads oci:DIR[:REF] and oci-archive:FILE[:REF] (the path
// ends at the first colon, as podman reads it); false for any other
// argument. Path is empty for an argument with nothing after the prefix.
func ParseLayout(arg string) (Layout, bool) {
	for _, pre := range []string{LayoutPrefix, ArchivePrefix} {
		if rest, ok := strings.CutPrefix(arg, pre); ok {
			p, ref, _ := strings.Cut(rest, ":")
			return Layout{Arg: arg, Path: p, Ref: ref, Archive: pre == ArchivePrefix}, true
		}
	}
	return Layout{}, false
}

// ParseTarget parses the reference an image is pushed to or named as in
// a layout: a registry reference, with or without docker://. Pushing to a
// local layout is not a reference (build writes one with its own flag).
func ParseTarget(arg string) (name.Reference, error) {
	if _, ok := ParseLayout(arg); ok {
		return nil, fmt.Errorf("%s: a local OCI layout is not a push target", arg)
	}
	rest := strings.TrimPrefix(arg, ImagePrefix)
	ref, err := name.ParseReference(rest)
	if err != nil {
		return nil, fmt.Errorf("image reference %q: %w", rest, err)
	}
	return ref, nil
}
