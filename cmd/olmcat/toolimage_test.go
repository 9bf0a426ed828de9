package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/unpack"
)

// TestBuiltImageIsAToolImage: the README tells users that a catalog image
// made by olmcat build can be bundle unpack's --tool-image; that holds
// while both place the binary at the same path.
func TestBuiltImageIsAToolImage(t *testing.T) {
	require.Equal(t, image.BinaryPath, unpack.DefaultToolBinary, "olmcat build's binary path is what bundle unpack runs")
}
