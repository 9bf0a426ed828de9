package template

import (
	"bytes"
	"context"
	"io"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg"
)

// keeper decides what of each rendered bundle a render holds on to.
type keeper interface {
	// keep takes bundle i (in the order of the rendered refs) as it is
	// rendered, from any goroutine, and returns what the render holds
	// in its place.
	keep(i int, b *declcfg.Bundle) (*declcfg.Bundle, error)
	// full returns the whole bundle a kept one stands for.
	full(b *declcfg.Bundle) (*declcfg.Bundle, error)
}

// inMemory is Render's keeper: it holds every bundle whole.
type inMemory struct{}

func (inMemory) keep(_ int, b *declcfg.Bundle) (*declcfg.Bundle, error) { return b, nil }
func (inMemory) full(b *declcfg.Bundle) (*declcfg.Bundle, error)        { return b, nil }

// standIns is RenderStandIns' keeper: it holds a stand-in of each bundle
// (name, package, image, the olm.package properties) and nothing else.
type standIns struct{}

// keep copies what it keeps: a string or value that is part of a larger
// one (the bundle's manifests) would hold all of it.
func (standIns) keep(_ int, b *declcfg.Bundle) (*declcfg.Bundle, error) {
	stand := &declcfg.Bundle{Schema: b.Schema, Name: strings.Clone(b.Name), Package: strings.Clone(b.Package),
		Image: strings.Clone(b.Image), Origin: b.Origin}
	for _, p := range b.Properties {
		if p.Type == declcfg.PropertyPackage {
			stand.Properties = append(stand.Properties, declcfg.Property{Type: p.Type, Value: bytes.Clone(p.Value)})
		}
	}
	return stand, nil
}

// full has only the stand-in: the semver template's package gets no
// icon or description from it.
func (standIns) full(b *declcfg.Bundle) (*declcfg.Bundle, error) { return b, nil }

// RenderStandIns renders the template in data as Render does, each
// rendered bundle reduced as it is rendered to a stand-in with its name,
// package, image and olm.package properties (its version): all an
// upgrade graph reads, in memory flat in the bundles' manifests. The
// semver template's package has no icon or description then: the config
// is for drawing, not for writing.
func RenderStandIns(ctx context.Context, data []byte, opts ...Option) (*declcfg.DeclarativeConfig, error) {
	o := makeOptions(opts)
	o.keep = standIns{}
	return render(ctx, data, o)
}

// RenderTo renders the template in data as Render does and writes the
// result to w in format f, byte for byte what declcfg.WriteStream with
// KeepEntryOrder writes of Render's config. Bundles are rendered up to
// the concurrency at once and each is written to a file in dir as soon
// as it is rendered, and so is every other blob (a basic template's as
// its entry loads): only what the output's order needs (names, packages,
// versions, where each blob is in the file) stays in memory, so a
// template of ten thousand bundle images costs about what one of a
// hundred does. Nothing is written to w unless the
// whole template renders.
func RenderTo(ctx context.Context, w io.Writer, f declcfg.Format, data []byte, dir string, opts ...Option) error {
	o := makeOptions(opts)
	sp, err := newSpill(dir, f)
	if err != nil {
		return err
	}
	defer sp.close()
	o.keep = sp
	cfg, err := render(ctx, data, o)
	if err != nil {
		return err
	}
	if !sp.used() { // nothing went through the spill (substitutes)
		var buf bytes.Buffer
		if err := declcfg.WriteStream(&buf, cfg, f, declcfg.KeepEntryOrder()); err != nil {
			return err
		}
		_, err := buf.WriteTo(w)
		return err
	}
	// The blobs a semver template generated (a basic template's went to
	// the spill as they loaded); its bundles are spilled already.
	if err := sp.addBlobs(cfg); err != nil {
		return err
	}
	return sp.write(w)
}
