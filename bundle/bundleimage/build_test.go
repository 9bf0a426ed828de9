package bundleimage_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/bundle/bundleimage"
	"github.com/operator-catalog/olmcat/image"
)

// bundleDir makes manifests/ and metadata/ of a minimal bundle in a
// temporary directory.
func bundleDir(t *testing.T) (manifests, metadata string) {
	t.Helper()
	dir := t.TempDir()
	manifests, metadata = filepath.Join(dir, "manifests"), filepath.Join(dir, "metadata")
	require.NoError(t, os.MkdirAll(manifests, 0o755))
	require.NoError(t, os.MkdirAll(metadata, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(manifests, "csv.yaml"), []byte("kind: ClusterServiceVersion\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(metadata, "annotations.yaml"), []byte("annotations: {}\n"), 0o644))
	return manifests, metadata
}

// TestBuildBundleReproducible: the digest depends on the files' names
// and contents, the labels and image.WithCreated, never on file times; a
// symlink in the bundle is refused with its path.
func TestBuildBundleReproducible(t *testing.T) {
	manifests, metadata := bundleDir(t)
	labels := map[string]string{annotation.Package: "foo"}
	digest := func(labels map[string]string, opts ...image.BuildOption) string {
		t.Helper()
		b, err := bundleimage.Build(context.Background(), manifests, metadata, labels, append(opts, image.WithBuildTempDir(t.TempDir()))...)
		require.NoError(t, err)
		defer b.Close()
		d, err := b.Image.Digest()
		require.NoError(t, err)
		return d.String()
	}
	first := digest(labels)
	later := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(manifests, "csv.yaml"), later, later))
	require.NoError(t, os.Chmod(filepath.Join(manifests, "csv.yaml"), 0o644))
	assert.Equal(t, first, digest(labels), "file times and modes do not change the digest")
	assert.NotEqual(t, first, digest(map[string]string{annotation.Package: "bar"}))
	assert.NotEqual(t, first, digest(labels, image.WithCreated(later)))

	require.NoError(t, os.Symlink("csv.yaml", filepath.Join(manifests, "link.yaml")))
	_, err := bundleimage.Build(context.Background(), manifests, metadata, labels, image.WithBuildTempDir(t.TempDir()))
	assert.ErrorContains(t, err, "link.yaml: not a regular file or directory")
}

// TestFailedBuildLeavesNoTempDir (issue 25 item 2): a bundle build that
// fails after it made its temporary directory removes it. Before, the
// deferred cleanup ran on the already-nil result and the directory
// stayed, for the next build to sweep as "left by an earlier run that
// was killed".
func TestFailedBuildLeavesNoTempDir(t *testing.T) {
	manifests, metadata := bundleDir(t)
	tmp := t.TempDir()
	_, err := bundleimage.Build(context.Background(), manifests, metadata, nil,
		image.WithBaseImage("127.0.0.1:1/none:v1", image.WithUseHTTP(true)), image.WithBuildTempDir(tmp))
	require.Error(t, err)
	assert.ErrorContains(t, err, "build bundle: base image: ")
	ents, err := os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, ents)
}
