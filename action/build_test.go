package action_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/bundle"
	"github.com/operator-catalog/olmcat/internal/pathcheck"
)

// TestBuild: a catalog image written as an OCI layout twice gives the
// same digest; an existing layout is replaced only with Force (a usage
// error naming it), an invalid catalog or a bad reference fails before
// anything is written, a layout inside the catalog is refused.
func TestBuild(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	exe := staticBinary(t)
	host := v1.Platform{OS: "linux", Architecture: runtime.GOARCH}
	work := t.TempDir()
	layout := filepath.Join(work, "oci")
	bad := filepath.Join(work, "bad")
	require.NoError(t, os.MkdirAll(bad, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bad, "c.json"), []byte(`{"schema":"olm.channel","name":"s","package":"nosuch"}`), 0o644))
	build := func(dir, ref, out string, force bool) (action.BuildResult, error) {
		return action.Build{Dir: dir, Ref: ref, Platforms: []v1.Platform{host}, Binaries: []action.Binary{{Platform: host, File: exe}},
			NoServeCache: true, OCILayout: out, Force: force}.Run(context.Background())
	}
	first, err := build(smallCatalog, "example.com/ns/catalog:v1", layout, false)
	require.NoError(t, err)
	assert.Equal(t, "example.com/ns/catalog", first.Name)
	assert.FileExists(t, filepath.Join(layout, "index.json"))

	_, err = build(smallCatalog, "example.com/ns/catalog:v1", layout, false)
	requireActionError(t, err, action.KindUsage, "Build.Force")
	again, err := build(smallCatalog, "example.com/ns/catalog:v1", layout, true)
	require.NoError(t, err)
	assert.Equal(t, first.Digest, again.Digest, "reproducible")

	for _, tc := range []struct {
		name, dir, ref, out string
		check               func(t *testing.T, err error)
	}{
		{"invalid catalog", bad, "example.com/ns/bad:v1", filepath.Join(work, "x"), func(t *testing.T, err error) {
			require.ErrorContains(t, err, "is not a valid catalog")
		}},
		{"bad reference", smallCatalog, "Not A Ref", filepath.Join(work, "y"), func(t *testing.T, err error) {
			requireActionError(t, err, action.KindUsage, "Build.Ref")
		}},
		{"layout in the catalog", bad, "example.com/ns/bad:v1", filepath.Join(bad, "oci"), func(t *testing.T, err error) {
			require.ErrorIs(t, err, pathcheck.ErrOverlap)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := build(tc.dir, tc.ref, tc.out, false)
			tc.check(t, err)
			assert.NoDirExists(t, tc.out)
		})
	}
}

// staticBinary is a static executable of the host platform (a build
// needs one per platform; what it runs does not matter here).
func staticBinary(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n"), 0o644))
	bin := filepath.Join(dir, "hello")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// TestBundleBuild: a bundle directory's metadata generated and its image
// written as an OCI layout, the same digest again; missing names are
// bundle.Generate's error.
func TestBundleBuild(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	src := filepath.Join(bundles, "small-fbb/foo-bundle-v0.1.0/manifests")
	dir := filepath.Join(t.TempDir(), "foo", "manifests")
	require.NoError(t, os.CopyFS(dir, os.DirFS(src)))
	t.Chdir(t.TempDir()) // bundle.Dockerfile is written here
	gen := bundle.GenerateOptions{Dir: dir, Package: "foo", Channels: "beta", BaseImage: "scratch"}
	var digests []string
	for _, force := range []bool{false, true} {
		layout := filepath.Join(t.TempDir(), "oci")
		res, err := action.BundleBuild{Generate: gen, OCILayout: layout, Force: force}.Run(context.Background())
		require.NoError(t, err)
		assert.Equal(t, "oci:"+layout, res.Where)
		assert.Equal(t, filepath.Join(filepath.Dir(dir), "metadata"), res.MetadataDir)
		digests = append(digests, res.Digest)
	}
	assert.Equal(t, digests[0], digests[1], "reproducible")
	assert.FileExists(t, filepath.Join(filepath.Dir(dir), "metadata", "annotations.yaml"))

	_, err := action.BundleBuild{Generate: bundle.GenerateOptions{Dir: dir}, OCILayout: filepath.Join(t.TempDir(), "oci")}.Run(context.Background())
	var missing *bundle.MissingNamesError
	require.ErrorAs(t, err, &missing)
}
