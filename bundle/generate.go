package bundle

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/internal/atomicfile"
)

// Where Generate puts the parts of a bundle, and the name of the
// Dockerfile it writes (opm's).
const (
	manifestsDir    = "manifests"
	metadataDir     = "metadata"
	annotationsFile = "annotations.yaml"
	dockerfileName  = "bundle.Dockerfile"
)

// GenerateOptions are the inputs of Generate (opm alpha bundle
// generate's).
type GenerateOptions struct {
	// Dir is the directory of the bundle's manifests.
	Dir string
	// Package, Channels (comma-separated) and DefaultChannel (optional)
	// become the annotations. Package and Channels are required: olmcat
	// does not infer them from an appregistry package directory.
	Package, Channels, DefaultChannel string
	// OutputDir, when set, receives a copy of the manifests in
	// manifests/ (files already there are kept) and the metadata;
	// otherwise the metadata goes beside Dir.
	OutputDir string
	// BaseImage is the Dockerfile's FROM.
	BaseImage string
	// DockerfileDir is where bundle.Dockerfile is written, the build
	// context its COPY sources are relative to; "" is the working
	// directory, as in opm.
	DockerfileDir string
	// Overwrite replaces an existing annotations.yaml and
	// bundle.Dockerfile. Without it an existing annotations.yaml must
	// hold every generated annotation (AnnotationsMismatchError
	// otherwise) and is kept, and so is an existing bundle.Dockerfile.
	Overwrite bool
	// Swept, when set, is told each temporary directory of an earlier,
	// killed write that a write removed.
	Swept func(dir string)
}

// Generated is where Generate put the bundle's parts.
type Generated struct {
	// ManifestsDir is Dir, or OutputDir/manifests.
	ManifestsDir string
	// MetadataDir holds annotations.yaml.
	MetadataDir string
}

// MissingNamesError is Generate's error when the package or the
// channels are not given.
type MissingNamesError struct {
	// Dir is the manifests directory, absolute.
	Dir string
}

func (e *MissingNamesError) Error() string {
	return "no package or channels given for directory " + e.Dir
}

// Generate writes a bundle's metadata/annotations.yaml and
// bundle.Dockerfile byte for byte as opm alpha bundle generate does: the
// media type detected from the manifests, the manifests and metadata
// directories, the package, channels and default channel, as annotations
// and as the Dockerfile's labels. Each file is written whole or not at
// all.
func Generate(o GenerateOptions) (Generated, error) {
	abs, err := filepath.Abs(o.Dir)
	if err != nil {
		return Generated{}, err
	}
	mediaType, err := MediaType(os.DirFS(abs), ".")
	if errors.Is(err, ErrNoManifestFiles) {
		err = errors.New("The directory " + abs + " contains no yaml files") // opm's text
	}
	if err != nil {
		return Generated{}, err
	}
	if o.Package == "" || o.Channels == "" {
		return Generated{}, &MissingNamesError{Dir: abs}
	}
	g, root := Generated{ManifestsDir: abs}, filepath.Dir(abs)
	if o.OutputDir != "" {
		if root, err = filepath.Abs(o.OutputDir); err != nil {
			return Generated{}, err
		}
		g.ManifestsDir = filepath.Join(root, manifestsDir)
		if err := atomicfile.CopyTree(abs, g.ManifestsDir, false, o.onSwept()...); err != nil {
			return Generated{}, err
		}
	}
	labels := o.labels(mediaType)
	g.MetadataDir = filepath.Join(root, metadataDir)
	if err := os.MkdirAll(g.MetadataDir, 0o755); err != nil {
		return Generated{}, err
	}
	if err := writeAnnotations(filepath.Join(g.MetadataDir, annotationsFile), labels, o.Overwrite, o.onSwept()); err != nil {
		return Generated{}, err
	}
	return g, o.writeDockerfile(g, labels)
}

// onSwept passes Swept on to the writes.
func (o GenerateOptions) onSwept() []atomicfile.Option {
	if o.Swept == nil {
		return nil
	}
	return []atomicfile.Option{atomicfile.OnSwept(o.Swept)}
}

// labels are the generated annotations in the order of opm's Dockerfile.
func (o GenerateOptions) labels(mediaType string) [][2]string {
	labels := [][2]string{
		{annotation.MediaType, mediaType}, {annotation.Manifests, manifestsDir + "/"}, {annotation.Metadata, metadataDir + "/"},
		{annotation.Package, o.Package}, {annotation.Channels, o.Channels},
	}
	if o.DefaultChannel != "" {
		labels = append(labels, [2]string{annotation.DefaultChannel, o.DefaultChannel})
	}
	return labels
}

// writeDockerfile writes bundle.Dockerfile unless it exists and
// Overwrite is not set.
func (o GenerateOptions) writeDockerfile(g Generated, labels [][2]string) error {
	dest := filepath.Join(o.DockerfileDir, dockerfileName) // relative to the working directory when unset
	if _, err := os.Stat(dest); err == nil && !o.Overwrite {
		return nil
	}
	dir, err := filepath.Abs(o.DockerfileDir) // the working directory when unset
	if err != nil {
		return err
	}
	df, err := dockerfile(o.BaseImage, labels, dir, g)
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(dest, []byte(df), o.onSwept()...)
}

// dockerfile is opm's bundle.Dockerfile: the labels, then COPY sources
// relative to dir, the build context. (opm ends the labels with a blank
// line only after a default channel.)
func dockerfile(baseImage string, labels [][2]string, dir string, g Generated) (string, error) {
	relManifests, err1 := filepath.Rel(dir, g.ManifestsDir)
	relMetadata, err2 := filepath.Rel(dir, g.MetadataDir)
	if err := errors.Join(err1, err2); err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "FROM %s\n\n", baseImage)
	for _, kv := range labels {
		fmt.Fprintf(&b, "LABEL %s=%s\n", kv[0], kv[1])
		if kv[0] == annotation.DefaultChannel {
			b.WriteString("\n")
		}
	}
	fmt.Fprintf(&b, "COPY %s /manifests/\nCOPY %s /metadata/\n", relManifests, relMetadata)
	return b.String(), nil
}
