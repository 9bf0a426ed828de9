package unpack

import (
	"fmt"
	"io/fs"
	"testing/fstest"

	"sigs.k8s.io/yaml"
)

// FS returns the bundle as a bundle directory: manifests/<name> and
// metadata/<name> for its files and metadata/annotations.yaml rebuilt
// from its annotations, the layout bundle.FromFS and opm render
// read.
func (b *Bundle) FS() (fs.FS, error) {
	fsys := fstest.MapFS{}
	for _, f := range b.Files {
		fsys[f.Path] = &fstest.MapFile{Data: f.Content, Mode: 0o644}
	}
	if len(b.Annotations) > 0 {
		data, err := yaml.Marshal(map[string]any{"annotations": b.Annotations})
		if err != nil {
			return nil, fmt.Errorf("bundle %s annotations: %w", b.Name, err)
		}
		fsys["metadata/"+AnnotationsFile] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	return fsys, nil
}
