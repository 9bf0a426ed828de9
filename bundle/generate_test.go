package bundle_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/bundle"
)

// TestGenerate: annotations.yaml and bundle.Dockerfile are byte-equal to
// what opm v1.73 alpha bundle generate wrote for the same inputs
// (fixtures/opmcli/bundle-generate), in place and with an output dir;
// the Dockerfile's COPY sources are relative to DockerfileDir.
func TestGenerate(t *testing.T) {
	golden := func(name string) string {
		data, err := os.ReadFile(filepath.Join("../fixtures/opmcli/bundle-generate", name))
		require.NoError(t, err)
		return string(data)
	}
	for _, tc := range []struct {
		name, annotations string
		opts              bundle.GenerateOptions
	}{
		{"default", "b1/metadata/annotations.yaml", bundle.GenerateOptions{Package: "foo", Channels: "beta,stable", DefaultChannel: "beta"}},
		{"outdir", "out/metadata/annotations.yaml", bundle.GenerateOptions{Package: "foo", Channels: "beta", OutputDir: "out"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wd := t.TempDir()
			require.NoError(t, os.CopyFS(filepath.Join(wd, "b1", "manifests"), os.DirFS("../fixtures/bundles/small-fbb/foo-bundle-v0.1.0/manifests")))
			tc.opts.Dir, tc.opts.BaseImage, tc.opts.DockerfileDir, tc.opts.Overwrite = filepath.Join(wd, "b1", "manifests"), "scratch", wd, true
			if tc.opts.OutputDir != "" {
				tc.opts.OutputDir = filepath.Join(wd, tc.opts.OutputDir)
			}
			g, err := bundle.Generate(tc.opts)
			require.NoError(t, err)
			assert.Equal(t, filepath.Join(wd, filepath.Dir(tc.annotations)), g.MetadataDir)
			got, err := os.ReadFile(filepath.Join(wd, "bundle.Dockerfile"))
			require.NoError(t, err)
			assert.Equal(t, golden(tc.name+".Dockerfile"), string(got))
			got, err = os.ReadFile(filepath.Join(wd, tc.annotations))
			require.NoError(t, err)
			assert.Equal(t, golden(tc.name+".annotations.yaml"), string(got))
		})
	}
}

// TestGenerateErrors: an empty directory (opm's text), no package, and,
// without Overwrite, an annotations.yaml that contradicts the generated
// annotations, which is kept.
func TestGenerateErrors(t *testing.T) {
	wd := t.TempDir()
	empty := filepath.Join(wd, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))
	_, err := bundle.Generate(bundle.GenerateOptions{Dir: empty, Package: "foo", Channels: "beta", DockerfileDir: wd})
	assert.EqualError(t, err, "The directory "+empty+" contains no yaml files")

	src := "../fixtures/bundles/small-fbb/foo-bundle-v0.1.0"
	_, err = bundle.Generate(bundle.GenerateOptions{Dir: filepath.Join(src, "manifests"), DockerfileDir: wd})
	var missing *bundle.MissingNamesError
	require.ErrorAs(t, err, &missing)
	abs, _ := filepath.Abs(filepath.Join(src, "manifests"))
	assert.Equal(t, abs, missing.Dir)

	require.NoError(t, os.CopyFS(filepath.Join(wd, "b1"), os.DirFS(src)))
	before, err := os.ReadFile(filepath.Join(wd, "b1/metadata/annotations.yaml"))
	require.NoError(t, err)
	_, err = bundle.Generate(bundle.GenerateOptions{Dir: filepath.Join(wd, "b1/manifests"), Package: "bar", Channels: "beta", DockerfileDir: wd})
	var mismatch *bundle.AnnotationsMismatchError
	require.ErrorAs(t, err, &mismatch)
	assert.Contains(t, mismatch.Problems, `Expect field "operators.operatorframework.io.bundle.package.v1" to have value "bar" instead of "foo"`)
	after, err := os.ReadFile(filepath.Join(wd, "b1/metadata/annotations.yaml"))
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "annotations.yaml kept")
}
