package image_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/image"
)

// TestFailedBuildLeavesNoTempDir (issue 25 item 2): a catalog build that
// fails after it made its temporary directory removes it. Before, the
// deferred cleanup ran on the already-nil result and the directory
// stayed, for the next build to sweep as "left by an earlier run that
// was killed". (The bundle build's case is bundle/bundleimage's.)
func TestFailedBuildLeavesNoTempDir(t *testing.T) {
	amd64 := v1.Platform{OS: "linux", Architecture: "amd64"}
	tmp := t.TempDir()
	_, err := image.Build(context.Background(), "../fixtures/legacy/small-fbb/opm-migrate", image.WithPlatforms(amd64),
		image.WithBinary(amd64, filepath.Join(t.TempDir(), "missing")), image.WithBuildTempDir(tmp))
	require.Error(t, err)
	ents, err := os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, ents)
}
