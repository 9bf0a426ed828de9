package bundlecheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/operator-catalog/olmcat/bundle"
	"github.com/operator-catalog/olmcat/bundle/annotation"
)

// checkFormat is opm's ValidateBundleFormat.
func checkFormat(fsys fs.FS, r *Report) {
	c := collector{&r.Format}
	for _, d := range []string{"manifests", "metadata"} {
		if st, err := fs.Stat(fsys, d); err != nil || !st.IsDir() {
			c.add(d+"/", fmt.Sprintf("Unable to locate %s directory", d))
		}
	}
	if len(r.Format) > 0 {
		return
	}
	mt, err := bundle.MediaType(fsys, "manifests")
	switch {
	case errors.Is(err, bundle.ErrNoManifestFiles):
		c.add("manifests/", "The directory manifests/ contains no yaml files")
	case err != nil:
		c.add("manifests/", err.Error())
	default:
		r.MediaType = mt
	}
	ann, deps, err := readMetadata(fsys)
	if err != nil {
		c.add("metadata/", err.Error())
		return
	}
	if ann == nil {
		c.add("metadata/", "Could not find annotations file")
	} else {
		checkAnnotations(c, ann.file, ann.values, r.MediaType)
	}
	if deps != nil {
		checkDependencies(c, deps.file, deps.list)
	}
}

type annotationsFile struct {
	file   string
	values map[string]string
}

type dependenciesFile struct {
	file string
	list []dependency
}

type dependency struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

// readMetadata finds, as opm does, the annotations file (the first file
// of metadata/ holding an annotations map) and the dependencies file (the
// first other file with a non-empty dependencies list). Names do not
// matter; files that decode as neither are ignored.
func readMetadata(fsys fs.FS) (*annotationsFile, *dependenciesFile, error) {
	ents, err := fs.ReadDir(fsys, "metadata")
	if err != nil {
		return nil, nil, err
	}
	var ann *annotationsFile
	var deps *dependenciesFile
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		p := path.Join("metadata", e.Name())
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", p, err)
		}
		var a struct {
			Annotations map[string]string `json:"annotations"`
		}
		if ann == nil && yaml.Unmarshal(data, &a) == nil && a.Annotations != nil {
			ann = &annotationsFile{file: p, values: a.Annotations}
			continue
		}
		var d struct {
			Dependencies []dependency `json:"dependencies"`
		}
		if deps == nil && yaml.Unmarshal(data, &d) == nil && len(d.Dependencies) > 0 {
			deps = &dependenciesFile{file: p, list: d.Dependencies}
		}
	}
	return ann, deps, nil
}

// checkAnnotations: the required keys, the media type, the manifests and
// metadata directories (opm compares these against the wrong constant
// and never reports them), non-empty package and channels, and a default
// channel that is non-empty when present. Keys are checked in a fixed
// order (opm's order is Go map order).
func checkAnnotations(c collector, file string, ann map[string]string, mediaType string) {
	for _, k := range []string{annotation.MediaType, annotation.Manifests, annotation.Metadata, annotation.Package, annotation.Channels} {
		if _, ok := ann[k]; !ok {
			c.add(file, fmt.Sprintf("Missing annotation %q", k))
		}
	}
	if v := ann[annotation.MediaType]; mediaType != "" && v != mediaType {
		c.add(file, fmt.Sprintf("Expecting annotation %q to have value %q instead of %q", annotation.MediaType, mediaType, v))
	}
	for _, kv := range [][2]string{{annotation.Manifests, "manifests/"}, {annotation.Metadata, "metadata/"}} {
		if v, ok := ann[kv[0]]; ok && strings.TrimSuffix(v, "/") != strings.TrimSuffix(kv[1], "/") {
			c.add(file, fmt.Sprintf("Expecting annotation %q to have value %q instead of %q", kv[0], kv[1], v))
		}
	}
	// opm reports an empty channels value even when the key is missing
	// (next to "Missing annotation"); the package and default channel
	// only when present.
	for _, k := range []string{annotation.Package, annotation.Channels, annotation.DefaultChannel} {
		if v, ok := ann[k]; (ok || k == annotation.Channels) && strings.TrimSpace(v) == "" {
			c.add(file, fmt.Sprintf("Expecting annotation %q to have non-empty value", k))
		}
	}
}
