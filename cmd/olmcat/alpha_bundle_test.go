package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
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
		assert.Equal(t, exitUsage, code)
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

// copyBundle copies the bundle dir src into a temp dir, lets edit change
// it (paths relative to the copy) and returns the copy.
func copyBundle(t testing.TB, src string, edit map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS(src)))
	for name, content := range edit {
		p := filepath.Join(dir, name)
		if content == "" {
			require.NoError(t, os.Remove(p))
			continue
		}
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return dir
}

// TestAlphaBundleUnpackValidate pulls bundle images from a loopback
// registry: unpack validates then copies the image's content into --out;
// validate passes a good bundle, optional validators included, and
// prints opm's messages for bad ones (exit 1).
func TestAlphaBundleUnpackValidate(t *testing.T) {
	reg := imagetest.New(t)
	_, imgFlags := imageTestEnv(t)
	good := "../../fixtures/bundles/community/cockroachdb/5.0.4"
	ref := pushBundleImage(t, reg, "cockroachdb/bundle:v5.0.4", good)
	// foo 0.3.0's annotations lack the media type, manifests and
	// metadata keys: a format error.
	formatRef := pushBundleImage(t, reg, "foo/bundle:v0.3.0", "../../fixtures/bundles/small-fbb/foo-bundle-v0.3.0")
	quota := "apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: q\n"
	contentRef := pushBundleImage(t, reg, "cockroachdb/bundle:quota", copyBundle(t, good, map[string]string{"manifests/quota.yaml": quota}))
	pdb := "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: p\nspec:\n  maxUnavailable: 0\n"
	pdbRef := pushBundleImage(t, reg, "cockroachdb/bundle:pdb", copyBundle(t, good, map[string]string{"manifests/pdb.yaml": pdb}))
	qux := "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: qux.v1.0.0\nspec:\n  displayName: Qux\n  version: 1.0.0\n"
	quxAnn := "annotations:\n  operators.operatorframework.io.bundle.mediatype.v1: registry+v1\n  operators.operatorframework.io.bundle.manifests.v1: manifests/\n  operators.operatorframework.io.bundle.metadata.v1: metadata/\n  operators.operatorframework.io.bundle.package.v1: qux\n  operators.operatorframework.io.bundle.channels.v1: stable\n"
	quxDir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(quxDir, "manifests"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(quxDir, "metadata"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(quxDir, "manifests", "qux.csv.yaml"), []byte(qux), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(quxDir, "metadata", "annotations.yaml"), []byte(quxAnn), 0o644))
	quxRef := pushBundleImage(t, reg, "qux/bundle:v1.0.0", quxDir)

	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := runCLI(t, append([]string{"alpha", "bundle", "unpack", ref, "-o", out}, imgFlags...)...)
	require.Equal(t, 0, code, stderr)
	for _, f := range []string{"manifests/cockroachdb.clusterserviceversion.yaml", "manifests/charts.operatorhub.io_cockroachdbs.yaml", "metadata/annotations.yaml"} {
		want, err := os.ReadFile(filepath.Join(good, f))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(out, f))
		require.NoError(t, err, f)
		assert.Equal(t, string(want), string(got), f)
	}
	_, stderr, code = runCLI(t, append([]string{"alpha", "bundle", "unpack", formatRef, "-o", t.TempDir()}, imgFlags...)...)
	assert.Equal(t, exitInvalid, code)
	assert.Contains(t, stderr, `bundle format validation failed: Bundle validation errors: Missing annotation "operators.operatorframework.io.bundle.mediatype.v1"`)
	_, stderr, code = runCLI(t, append([]string{"alpha", "bundle", "unpack", contentRef, "-o", t.TempDir()}, imgFlags...)...)
	assert.Equal(t, exitInvalid, code)
	assert.Contains(t, stderr, "bundle content validation failed: Bundle validation errors: ResourceQuota is not supported type for registryV1 bundle: manifests/quota.yaml")
	_, stderr, code = runCLI(t, append([]string{"alpha", "bundle", "unpack", contentRef, "-v", "-o", t.TempDir()}, imgFlags...)...)
	assert.Equal(t, 0, code, stderr)

	validate := func(tag string, extra ...string) (string, int) {
		_, stderr, code := runCLI(t, append(append([]string{"alpha", "bundle", "validate", "-t", tag}, extra...), imgFlags...)...)
		return stderr, code
	}
	stderr, code = validate(ref, "-b", "podman", "-o", "operatorhub,bundle-objects")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "All validation tests have been completed successfully")
	assert.Contains(t, stderr, "needs no container daemon")
	stderr, code = validate(quxRef)
	assert.Equal(t, exitInvalid, code)
	assert.Contains(t, stderr, "Bundle validation errors: Error: Value : (qux.v1.0.0) install modes not found,Error: Field Spec.InstallStrategy, Value struct: required field missing")
	assert.NotContains(t, stderr, "content validation failed")
	stderr, code = validate(pdbRef)
	require.Equal(t, 0, code, stderr)
	stderr, code = validate(pdbRef, "-o", "bundle-objects")
	assert.Equal(t, exitInvalid, code)
	assert.Contains(t, stderr, "Bundle validation errors: Error: Value PodDisruptionBudget p: maxUnavailable field cannot be set to 0 or 0%")
	_, code = validate(ref, "-o", "nosuch")
	assert.Equal(t, exitUsage, code)
	_, _, code = runCLI(t, "alpha", "bundle", "validate")
	assert.Equal(t, exitUsage, code)
}
