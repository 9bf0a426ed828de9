package catalogtest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/internal/testutil/dbbuild"
)

// The declarative config blobs, as opm migrate writes them.
type (
	pkgBlob struct {
		Schema         string `json:"schema"`
		Name           string `json:"name"`
		DefaultChannel string `json:"defaultChannel"`
	}
	channelBlob struct {
		Schema  string       `json:"schema"`
		Package string       `json:"package"`
		Name    string       `json:"name"`
		Entries []entryValue `json:"entries"`
	}
	entryValue struct {
		Name     string   `json:"name"`
		Replaces string   `json:"replaces,omitempty"`
		Skips    []string `json:"skips,omitempty"`
	}
	bundleBlob struct {
		Schema        string                  `json:"schema"`
		Name          string                  `json:"name"`
		Package       string                  `json:"package"`
		Image         string                  `json:"image"`
		Properties    []property              `json:"properties"`
		RelatedImages []manifest.RelatedImage `json:"relatedImages,omitempty"`
	}
	property struct {
		Type  string `json:"type"`
		Value any    `json:"value"`
	}
	gvkValue struct {
		Group   string `json:"group"`
		Kind    string `json:"kind"`
		Version string `json:"version"`
	}
)

// blobs returns the package's declarative config: the olm.package blob,
// the channels, then the bundles with the properties opm derives from the
// manifests (olm.package, olm.gvk, olm.gvk.required, one olm.bundle.object
// per manifest) and the CSV's images plus the bundle image as related
// images.
func (p Package) blobs() []any {
	out := []any{pkgBlob{Schema: "olm.package", Name: p.Name, DefaultChannel: p.DefaultChannel}}
	chans := slices.SortedFunc(slices.Values(p.Channels), func(a, b Channel) int { return strings.Compare(a.Name, b.Name) })
	for _, ch := range chans {
		cb := channelBlob{Schema: "olm.channel", Package: p.Name, Name: ch.Name, Entries: []entryValue{}}
		for _, e := range ch.Entries {
			cb.Entries = append(cb.Entries, entryValue(e))
		}
		slices.SortFunc(cb.Entries, func(a, b entryValue) int { return strings.Compare(a.Name, b.Name) })
		out = append(out, cb)
	}
	bundles := slices.SortedFunc(slices.Values(p.Bundles), func(a, b Bundle) int { return strings.Compare(a.Name, b.Name) })
	for _, b := range bundles {
		bb := bundleBlob{Schema: "olm.bundle", Name: b.Name, Package: b.Package, Image: b.Image,
			Properties: []property{{"olm.package", map[string]string{"packageName": b.Package, "version": b.Version}}}}
		for _, g := range b.Provided {
			bb.Properties = append(bb.Properties, property{"olm.gvk", gvkValue{g.Group, g.Kind, g.Version}})
		}
		for _, g := range b.Required {
			bb.Properties = append(bb.Properties, property{"olm.gvk.required", gvkValue{g.Group, g.Kind, g.Version}})
		}
		for _, o := range b.Objects {
			bb.Properties = append(bb.Properties, property{"olm.bundle.object", map[string][]byte{"data": o}})
		}
		for _, img := range b.RelatedImages {
			bb.RelatedImages = append(bb.RelatedImages, manifest.RelatedImage{Name: "operator", Image: img})
		}
		out = append(out, bb)
	}
	return out
}

// WriteJSON writes the package as declarative config in opm's JSON form:
// a stream of objects indented by four spaces, HTML characters not
// escaped.
func (p Package) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "    ")
	enc.SetEscapeHTML(false)
	for _, b := range p.blobs() {
		if err := enc.Encode(b); err != nil {
			return fmt.Errorf("catalogtest: write package %s: %w", p.Name, err)
		}
	}
	return nil
}

// WriteJSON writes the whole catalog as declarative config in opm's JSON
// form, package by package.
func (c *Catalog) WriteJSON(w io.Writer) error {
	for p := range c.Packages() {
		if err := p.WriteJSON(w); err != nil {
			return err
		}
	}
	return nil
}

// WriteDir writes the catalog into dir in opm's layout, one
// <pkg>/catalog.json per package.
func (c *Catalog) WriteDir(dir string) error {
	for p := range c.Packages() {
		if err := writeFile(filepath.Join(dir, p.Name, "catalog.json"), p.WriteJSON); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(path string, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := write(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("catalogtest: write %s: %w", path, err)
	}
	return f.Close()
}

// DBBundles returns the catalog as bundles for the legacy index builder,
// as if loaded from bundle images: each bundle carries the annotations
// of its package, channels and default channel, its manifests, image and
// the base's properties and dependencies. A legacy index links a channel
// through the CSVs' replaces, so it holds the channels of
// WithEveryBundleInEveryChannel as generated.
func (c *Catalog) DBBundles() []dbbuild.Bundle {
	out := make([]dbbuild.Bundle, 0, c.NumBundles())
	for p := range c.Packages() {
		for _, b := range p.Bundles {
			out = append(out, dbbuild.Bundle{
				Package:        b.Package,
				Channels:       b.Channels,
				DefaultChannel: p.DefaultChannel,
				CSV:            b.CSV(),
				Objects:        b.Objects,
				Image:          b.Image,
				Dependencies:   b.Dependencies,
				Properties:     b.Properties,
			})
		}
	}
	return out
}
