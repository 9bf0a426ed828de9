package bundle

import (
	"errors"
	"io/fs"
	"path"
	"sort"

	"sigs.k8s.io/yaml"

	"github.com/operator-catalog/olmcat/internal/manifest"
)

// Media types of a manifests directory.
const (
	MediaTypeRegistryV1 = "registry+v1"
	MediaTypeHelm       = "helm"
	MediaTypePlain      = "plain"
)

// ErrNoManifestFiles is MediaType's error for a directory without regular
// files.
var ErrNoManifestFiles = errors.New("contains no yaml files")

// MediaType is opm's media type of the directory dir of fsys: helm for a
// chart (a Chart.yaml), registry+v1 when a top-level file is a
// ClusterServiceVersion, plain otherwise. A directory without regular
// files is ErrNoManifestFiles.
func MediaType(fsys fs.FS, dir string) (string, error) {
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return "", err
	}
	var files []string
	for _, e := range ents {
		if e.Type().IsRegular() {
			files = append(files, e.Name())
		}
	}
	if len(files) == 0 {
		return "", ErrNoManifestFiles
	}
	sort.Strings(files)
	for _, name := range files {
		if name == "Chart.yaml" {
			return MediaTypeHelm, nil
		}
	}
	for _, name := range files {
		data, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			return "", err
		}
		var obj struct {
			Kind string `json:"kind"`
		}
		if yaml.Unmarshal(data, &obj) == nil && obj.Kind == manifest.KindCSV {
			return MediaTypeRegistryV1, nil
		}
	}
	return MediaTypePlain, nil
}
