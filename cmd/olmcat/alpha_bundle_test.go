package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/image/imagetest"
)

// TestAlphaBundleGenerate: annotations.yaml and bundle.Dockerfile are
// byte-equal to what opm v1.73 wrote for the same arguments
// (fixtures/opmcli/bundle-generate), in place and with --output-dir.
func TestAlphaBundleGenerate(t *testing.T) {
	goldenDir, err := filepath.Abs("../../fixtures/opmcli/bundle-generate")
	require.NoError(t, err)
	golden := func(name string) string {
		data, err := os.ReadFile(filepath.Join(goldenDir, name))
		require.NoError(t, err)
		return string(data)
	}
	fixture, err := filepath.Abs("../../fixtures/bundles/small-fbb/foo-bundle-v0.1.0/manifests")
	require.NoError(t, err)
	for _, tc := range []struct {
		name, annotations string
		args              []string
	}{
		{"default", "b1/metadata/annotations.yaml", []string{"-d", "b1/manifests", "-p", "foo", "-c", "beta,stable", "-e", "beta"}},
		{"outdir", "out/metadata/annotations.yaml", []string{"-d", "b1/manifests", "-p", "foo", "-c", "beta", "-u", "out"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wd := t.TempDir()
			require.NoError(t, os.CopyFS(filepath.Join(wd, "b1", "manifests"), os.DirFS(fixture)))
			t.Chdir(wd)
			_, stderr, code := runCLI(t, append([]string{"alpha", "bundle", "generate"}, tc.args...)...)
			require.Equal(t, 0, code, stderr)
			got, err := os.ReadFile("bundle.Dockerfile")
			require.NoError(t, err)
			assert.Equal(t, golden(tc.name+".Dockerfile"), string(got))
			got, err = os.ReadFile(tc.annotations)
			require.NoError(t, err)
			assert.Equal(t, golden(tc.name+".annotations.yaml"), string(got))
		})
	}
	t.Run("errors", func(t *testing.T) {
		wd := t.TempDir()
		t.Chdir(wd)
		require.NoError(t, os.Mkdir("empty", 0o755))
		_, stderr, code := runCLI(t, "alpha", "bundle", "generate", "-d", "empty", "-p", "foo", "-c", "beta")
		assert.Equal(t, exitInvalid, code)
		assert.Contains(t, stderr, "contains no yaml files")
		_, stderr, code = runCLI(t, "alpha", "bundle", "generate", "-d", fixture)
		assert.Equal(t, exitInvalid, code)
		assert.Contains(t, stderr, "please manually input channels and packageName")
		_, _, code = runCLI(t, "alpha", "bundle", "generate")
		assert.Equal(t, exitUsage, code)
	})
}

// TestAlphaBundleExtractFlags: opm's defaults on the shared extract code.
func TestAlphaBundleExtractFlags(t *testing.T) {
	cmd := findCommand(newRootCmd(), []string{"alpha", "bundle", "extract"})
	require.NotNil(t, cmd)
	assert.Equal(t, "openshift-operator-lifecycle-manager", cmd.Flag("namespace").Value.String())
	assert.Equal(t, "/", cmd.Flag("manifestsdir").Value.String())
}

// TestAlphaBundleUnpackValidate pulls bundle images from a loopback
// registry: unpack copies the image's content into --out, validate
// passes a good bundle and names the problem of a bad one.
func TestAlphaBundleUnpackValidate(t *testing.T) {
	reg := imagetest.New(t)
	_, imgFlags := imageTestEnv(t)
	good := "../../fixtures/bundles/small-fbb/foo-bundle-v0.1.0"
	ref := pushBundleImage(t, reg, "foo/bundle:v0.1.0", good)
	bad := t.TempDir()
	require.NoError(t, os.CopyFS(filepath.Join(bad, "metadata"), os.DirFS(filepath.Join(good, "metadata"))))
	require.NoError(t, os.MkdirAll(filepath.Join(bad, "manifests"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bad, "manifests", "cm.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"), 0o644))
	badRef := pushBundleImage(t, reg, "foo/bundle:bad", bad)

	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := runCLI(t, append([]string{"alpha", "bundle", "unpack", ref, "-o", out}, imgFlags...)...)
	require.Equal(t, 0, code, stderr)
	for _, f := range []string{"manifests/foo.v0.1.0.csv.yaml", "manifests/foos.test.foo.crd.yaml", "metadata/annotations.yaml"} {
		want, err := os.ReadFile(filepath.Join(good, f))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(out, f))
		require.NoError(t, err, f)
		assert.Equal(t, string(want), string(got), f)
	}
	_, stderr, code = runCLI(t, append([]string{"alpha", "bundle", "unpack", badRef, "-o", t.TempDir()}, imgFlags...)...)
	assert.Equal(t, exitInvalid, code)
	assert.Contains(t, stderr, "bundle format validation failed")
	_, stderr, code = runCLI(t, append([]string{"alpha", "bundle", "unpack", badRef, "-v", "-o", t.TempDir()}, imgFlags...)...)
	assert.Equal(t, 0, code, stderr)

	_, stderr, code = runCLI(t, append([]string{"alpha", "bundle", "validate", "-t", ref, "-b", "podman"}, imgFlags...)...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "All validation tests have been completed successfully")
	assert.Contains(t, stderr, "needs no container daemon")
	_, stderr, code = runCLI(t, append([]string{"alpha", "bundle", "validate", "-t", badRef}, imgFlags...)...)
	assert.Equal(t, exitInvalid, code)
	assert.Contains(t, stderr, "Bundle validation errors")
	_, _, code = runCLI(t, "alpha", "bundle", "validate")
	assert.Equal(t, exitUsage, code)
}
