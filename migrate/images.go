package migrate

import (
	"strings"

	"github.com/distribution/reference"

	"github.com/operator-catalog/olmcat/legacy"
)

// RepairRepeatedDigest: an image reference that carries the same digest
// twice (repo@sha256:X@sha256:X, found in a real database) is written with
// the digest once: it names exactly one image.
const RepairRepeatedDigest legacy.RepairKind = "repeated-digest"

// validateImageRef checks that s is a pull spec a client could pull.
func validateImageRef(s string) error {
	_, err := reference.ParseNormalizedNamed(s)
	return err
}

// repairRepeatedDigest returns s with a repeated digest written once, and
// whether s had that shape and the result is a valid reference. Any other
// reference, valid or not, is returned unchanged with false: two
// different digests are ambiguous and stay invalid.
func repairRepeatedDigest(s string) (string, bool) {
	parts := strings.Split(s, "@")
	if len(parts) < 3 {
		return s, false
	}
	for _, d := range parts[2:] {
		if d != parts[1] {
			return s, false
		}
	}
	fixed := parts[0] + "@" + parts[1]
	if validateImageRef(fixed) != nil {
		return s, false
	}
	return fixed, true
}
