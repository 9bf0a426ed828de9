package main

import (
	"testing"

	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/unpack"
)

// TestBuiltImageIsAToolImage: the README tells users that a catalog image
// made by olmcat build can be bundle unpack's --tool-image; that holds
// while both place the binary at the same path.
func TestBuiltImageIsAToolImage(t *testing.T) {
	if image.BinaryPath != unpack.DefaultToolBinary {
		t.Fatalf("olmcat build puts the binary at %s, bundle unpack runs %s", image.BinaryPath, unpack.DefaultToolBinary)
	}
}
