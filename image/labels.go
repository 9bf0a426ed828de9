package image

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/operator-catalog/olmcat/bundle/annotation"
)

// Labels operator-framework images carry. A bundle image is marked by
// annotation.Package, the bundle annotation its bundle.Dockerfile copies
// into a label.
const (
	// LabelConfigs names the declarative config directory of a catalog image.
	LabelConfigs = "operators.operatorframework.io.index.configs.v1"
	// LabelDatabase names the sqlite database of a legacy index image.
	LabelDatabase = "operators.operatorframework.io.index.database.v1"
)

// Source says which catalog of an image to read.
type Source string

// The sources ParseSource accepts.
const (
	// SourceAuto prefers the configs, or the database when the caller
	// prefers it (migrate does: the transitional images of 2022-2023
	// carry both, and the database is the original).
	SourceAuto Source = ""
	// SourceSQLite reads the database label.
	SourceSQLite Source = "sqlite"
	// SourceConfigs reads the configs label.
	SourceConfigs Source = "configs"
)

// ParseSource parses a --source value (empty, sqlite or configs).
func ParseSource(s string) (Source, error) {
	switch Source(s) {
	case SourceAuto, SourceSQLite, SourceConfigs:
		return Source(s), nil
	}
	return "", fmt.Errorf("unknown source %q (want sqlite or configs)", s)
}

// Kind is what an image holds, by its labels (FindCatalog). Package input
// reads it to tell a catalog image from a bundle image; commands see only
// input.Kind, the one kind of an argument.
type Kind string

// The kinds FindCatalog recognises.
const (
	KindConfigs Kind = "configs"
	KindSQLite  Kind = "sqlite"
	KindBundle  Kind = "bundle"
)

// Catalog is where an image keeps its catalog.
type Catalog struct {
	// Kind is configs, sqlite or bundle.
	Kind Kind
	// Path is the image path of the configs dir or the db file, cleaned
	// and relative to the image root (relative label values are joined to
	// the root, as opm does). Empty for bundles.
	Path string
	// Label is the label Path came from.
	Label string
	// Labels are all labels of the image config.
	Labels map[string]string
}

// FindCatalog decides from an image's labels where its catalog is.
// With SourceAuto the configs win unless preferSQLite; an explicit source
// must be present. Bundle images are KindBundle. No recognised label is
// an error listing the labels found.
func FindCatalog(ref string, labels map[string]string, src Source, preferSQLite bool) (*Catalog, error) {
	cfgPath, hasCfg := labels[LabelConfigs]
	dbPath, hasDB := labels[LabelDatabase]
	var c *Catalog
	switch {
	case src == SourceSQLite && !hasDB, src == SourceConfigs && !hasCfg:
		want := map[Source]string{SourceSQLite: LabelDatabase, SourceConfigs: LabelConfigs}[src]
		return nil, fmt.Errorf("image %s: source %s asked for, but the image has no %s label; %s", ref, src, want, describeLabels(labels))
	case src == SourceSQLite, src == SourceAuto && hasDB && (preferSQLite || !hasCfg):
		c = &Catalog{Kind: KindSQLite, Path: dbPath, Label: LabelDatabase}
	case hasCfg:
		c = &Catalog{Kind: KindConfigs, Path: cfgPath, Label: LabelConfigs}
	default:
		if _, ok := labels[annotation.Package]; ok {
			return &Catalog{Kind: KindBundle, Label: annotation.Package, Labels: labels}, nil
		}
		return nil, fmt.Errorf("image %s: not a catalog or bundle image (no %s, %s or %s label); %s",
			ref, LabelConfigs, LabelDatabase, annotation.Package, describeLabels(labels))
	}
	c.Labels = labels
	clean := strings.TrimPrefix(path.Clean("/"+c.Path), "/")
	if strings.TrimSpace(c.Path) == "" || clean == "" {
		return nil, fmt.Errorf("image %s: label %s=%q does not name a path below the image root", ref, c.Label, c.Path)
	}
	c.Path = clean
	return c, nil
}

// describeLabels lists labels sorted, one key=value per line.
func describeLabels(labels map[string]string) string {
	if len(labels) == 0 {
		return "the image has no labels"
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("labels found:")
	for _, k := range keys {
		fmt.Fprintf(&b, "\n  %s=%s", k, labels[k])
	}
	return b.String()
}
