package image_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/operator-catalog/olmcat/image"
)

// opmImage stands for the opm image a pipeline names (olmcat has no default).
const opmImage = "registry.example.com/operator-framework/opm:latest"

// TestWriteDockerfileMatchesOPM: the file opm generate dockerfile catalog
// -i IMAGE -b IMAGE writes (testdata/catalog.Dockerfile, from the
// reference), byte for byte.
func TestWriteDockerfileMatchesOPM(t *testing.T) {
	want, err := os.ReadFile("testdata/catalog.Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cat := filepath.Join(dir, "catalog")
	if err := os.Mkdir(cat, 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := image.WriteDockerfile(cat, image.DockerfileOptions{BaseImage: opmImage})
	if err != nil {
		t.Fatal(err)
	}
	if p != filepath.Join(dir, "catalog.Dockerfile") {
		t.Errorf("written to %s", p)
	}
	got, _ := os.ReadFile(p)
	if string(got) != string(want) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := image.WriteDockerfile(cat, image.DockerfileOptions{BaseImage: opmImage}); err == nil || !strings.Contains(err.Error(), "file already exists") {
		t.Errorf("second write: %v", err)
	}
	if _, err := image.WriteDockerfile(filepath.Join(dir, "missing"), image.DockerfileOptions{BaseImage: opmImage}); err == nil || !strings.Contains(err.Error(), "no such file or directory") {
		t.Errorf("missing dir: %v", err)
	}
	if _, err := image.WriteDockerfile(p, image.DockerfileOptions{BaseImage: opmImage}); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("file: %v", err)
	}
}

func TestDockerfileOptions(t *testing.T) {
	got, err := image.Dockerfile("cat", image.DockerfileOptions{BaseImage: "base.test/opm:v1", BuilderImage: "builder.test/opm:v1", ExtraLabels: map[string]string{"z": "last", "a": "first"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"FROM builder.test/opm:v1 as builder\n",
		"\nFROM base.test/opm:v1\n",
		"LABEL operators.operatorframework.io.index.configs.v1=/configs\n\n# Set other custom labels\nLABEL \"a\"=\"first\"\nLABEL \"z\"=\"last\"\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	scratch, err := image.Dockerfile("cat", image.DockerfileOptions{BaseImage: "scratch", BuilderImage: opmImage})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(scratch, "ENTRYPOINT") || !strings.Contains(scratch, "extractContent.catalogDir: /configs") {
		t.Errorf("scratch variant:\n%s", scratch)
	}
	if _, err := image.Dockerfile("cat", image.DockerfileOptions{BaseImage: opmImage, BuilderImage: "scratch"}); err == nil || err.Error() != `invalid builder image: "scratch"` {
		t.Errorf("scratch builder: %v", err)
	}
	if _, err := image.Dockerfile("cat", image.DockerfileOptions{BaseImage: "scratch"}); err == nil || err.Error() != `invalid builder image: "scratch"` {
		t.Errorf("scratch base without a builder: %v", err)
	}
	if _, err := image.Dockerfile("cat", image.DockerfileOptions{}); err == nil || !strings.Contains(err.Error(), "no base image") {
		t.Errorf("no base image: %v", err)
	}
}
