package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
