package image_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/image"
)

// opmImage stands for the opm image a pipeline names (olmcat has no default).
const opmImage = "registry.example.com/operator-framework/opm:latest"

// TestWriteDockerfileMatchesOPM: the file opm generate dockerfile catalog
// -i IMAGE -b IMAGE writes (testdata/catalog.Dockerfile, from the
// reference), byte for byte.
func TestWriteDockerfileMatchesOPM(t *testing.T) {
	want, err := os.ReadFile("testdata/catalog.Dockerfile")
	require.NoError(t, err)
	dir := t.TempDir()
	cat := filepath.Join(dir, "catalog")
	require.NoError(t, os.Mkdir(cat, 0o755))
	p, err := image.WriteDockerfile(cat, image.DockerfileOptions{BaseImage: opmImage})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "catalog.Dockerfile"), p, "written to")
	got, _ := os.ReadFile(p)
	assert.Equal(t, string(want), string(got))
	_, err = image.WriteDockerfile(cat, image.DockerfileOptions{BaseImage: opmImage})
	assert.ErrorContains(t, err, "file already exists", "second write")
	_, err = image.WriteDockerfile(filepath.Join(dir, "missing"), image.DockerfileOptions{BaseImage: opmImage})
	assert.ErrorContains(t, err, "no such file or directory", "missing dir")
	_, err = image.WriteDockerfile(p, image.DockerfileOptions{BaseImage: opmImage})
	assert.ErrorContains(t, err, "is not a directory", "file")
}

func TestDockerfileOptions(t *testing.T) {
	got, err := image.Dockerfile("cat", image.DockerfileOptions{BaseImage: "base.test/opm:v1", BuilderImage: "builder.test/opm:v1", ExtraLabels: map[string]string{"z": "last", "a": "first"}})
	require.NoError(t, err)
	for _, want := range []string{
		"FROM builder.test/opm:v1 as builder\n",
		"\nFROM base.test/opm:v1\n",
		"LABEL operators.operatorframework.io.index.configs.v1=/configs\n\n# Set other custom labels\nLABEL \"a\"=\"first\"\nLABEL \"z\"=\"last\"\n",
	} {
		assert.Contains(t, got, want)
	}
	scratch, err := image.Dockerfile("cat", image.DockerfileOptions{BaseImage: "scratch", BuilderImage: opmImage})
	require.NoError(t, err)
	assert.NotContains(t, scratch, "ENTRYPOINT", "scratch variant")
	assert.Contains(t, scratch, "extractContent.catalogDir: /configs", "scratch variant")
	_, err = image.Dockerfile("cat", image.DockerfileOptions{BaseImage: opmImage, BuilderImage: "scratch"})
	assert.EqualError(t, err, `invalid builder image: "scratch"`, "scratch builder")
	_, err = image.Dockerfile("cat", image.DockerfileOptions{BaseImage: "scratch"})
	assert.EqualError(t, err, `invalid builder image: "scratch"`, "scratch base without a builder")
	_, err = image.Dockerfile("cat", image.DockerfileOptions{})
	assert.ErrorContains(t, err, "no base image")
}
