package template

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

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

// spill is RenderTo's keeper: each bundle is written, formatted as the
// output wants it, to a file as it is rendered, and the render holds a
// stand-in with only what the templates read afterwards (name, package,
// image, the olm.package properties), so memory does not grow with the
// bundles' manifests.
type spill struct {
	f      *os.File
	format declcfg.Format

	mu    sync.Mutex
	size  int64
	recs  []spilled
	index map[*declcfg.Bundle]int // stand-in -> its record
}

// spilled is where bundle i is in the spill file: its formatted blob and
// its CSV (kept for the semver template's package icon).
type spilled struct {
	name        string
	blob, csv   int64 // offsets
	nBlob, nCSV int64
}

// newSpill creates the spill file in dir.
func newSpill(dir string, f declcfg.Format) (*spill, error) {
	fh, err := os.CreateTemp(dir, "rendered-bundles-*")
	if err != nil {
		return nil, err
	}
	return &spill{f: fh, format: f, index: map[*declcfg.Bundle]int{}}, nil
}

// close removes the spill file.
func (s *spill) close() error {
	return errors.Join(s.f.Close(), os.Remove(s.f.Name()))
}

func (s *spill) keep(i int, b *declcfg.Bundle) (*declcfg.Bundle, error) {
	var buf bytes.Buffer
	if err := declcfg.WriteStream(&buf, &declcfg.DeclarativeConfig{Bundles: []declcfg.Bundle{*b}}, s.format); err != nil {
		return nil, err
	}
	nBlob := int64(buf.Len())
	buf.WriteString(b.CsvJSON)
	stand, _ := standIns{}.keep(i, b)
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= len(s.recs) { // the number of refs is known once the template is parsed
		s.recs = append(s.recs, make([]spilled, i+1-len(s.recs))...)
	}
	if _, err := s.f.WriteAt(buf.Bytes(), s.size); err != nil {
		return nil, fmt.Errorf("spill rendered bundle: %w", err)
	}
	s.recs[i] = spilled{name: b.Name, blob: s.size, nBlob: nBlob, csv: s.size + nBlob, nCSV: int64(buf.Len()) - nBlob}
	s.size += int64(buf.Len())
	s.index[stand] = i
	return stand, nil
}

// full reads the bundle back (the semver template's default channel
// head, once).
func (s *spill) full(b *declcfg.Bundle) (*declcfg.Bundle, error) {
	s.mu.Lock()
	i, ok := s.index[b]
	s.mu.Unlock()
	if !ok {
		return b, nil
	}
	r := s.recs[i]
	data := make([]byte, r.nBlob+r.nCSV)
	if _, err := s.f.ReadAt(data, r.blob); err != nil {
		return nil, fmt.Errorf("read spilled bundle: %w", err)
	}
	var whole declcfg.Bundle
	err := declcfg.DecodeStream(bytes.NewReader(data[:r.nBlob]), func(blob json.RawMessage, _ int) error {
		return json.Unmarshal(blob, &whole)
	})
	if err != nil {
		return nil, fmt.Errorf("read spilled bundle: %w", err)
	}
	whole.CsvJSON = string(data[r.nBlob:])
	return &whole, nil
}

// RenderTo renders the template in data as Render does and writes the
// result to w in format f, byte for byte what declcfg.WriteStream with
// KeepEntryOrder writes of Render's config. Bundles are rendered up to
// the concurrency at once and each is written to a file in dir as soon
// as it is rendered: only names, packages, versions and the small blobs
// stay in memory, so a template of ten thousand bundle images costs
// about what one of a hundred does. Nothing is written to w unless the
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
	if len(sp.index) == 0 { // no bundle went through the keeper (substitutes)
		var buf bytes.Buffer
		if err := declcfg.WriteStream(&buf, cfg, f, declcfg.KeepEntryOrder()); err != nil {
			return err
		}
		_, err := buf.WriteTo(w)
		return err
	}
	return sp.write(w, cfg)
}

// write writes cfg, whose bundles are the stand-ins in the order they
// were kept, in declcfg's write order: packages by name (blobs of no
// package last), each with its olm.package and channels, its bundles by
// name (copied from the spill file), then its other blobs. The small
// blobs are formatted once before anything is written, so a blob that
// cannot be written fails before the output starts.
func (s *spill) write(w io.Writer, cfg *declcfg.DeclarativeConfig) error {
	if len(cfg.Bundles) != len(s.index) {
		return fmt.Errorf("internal error: %d bundles rendered, %d spilled", len(cfg.Bundles), len(s.index))
	}
	rest := *cfg
	rest.Bundles = nil
	if err := declcfg.WriteStream(io.Discard, &rest, s.format, declcfg.KeepEntryOrder()); err != nil {
		return err
	}
	groups := declcfg.SplitByPackage(&rest)
	bundles := map[string][]int{}
	for i, b := range cfg.Bundles {
		if s.recs[i].name != b.Name {
			return fmt.Errorf("internal error: bundle %d is %s, spilled as %s", i, b.Name, s.recs[i].name)
		}
		bundles[b.Package] = append(bundles[b.Package], i)
	}
	for _, pkg := range packageOrder(groups, bundles) {
		g := groups[pkg]
		if g == nil {
			g = &declcfg.DeclarativeConfig{}
		}
		head := &declcfg.DeclarativeConfig{Packages: g.Packages, Channels: g.Channels}
		if err := declcfg.WriteStream(w, head, s.format, declcfg.KeepEntryOrder()); err != nil {
			return err
		}
		idx := bundles[pkg]
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(cfg.Bundles[a].Name, cfg.Bundles[b].Name) })
		for _, i := range idx {
			if _, err := io.Copy(w, io.NewSectionReader(s.f, s.recs[i].blob, s.recs[i].nBlob)); err != nil {
				return err
			}
		}
		tail := &declcfg.DeclarativeConfig{Others: g.Others, Deprecations: g.Deprecations}
		if err := declcfg.WriteStream(w, tail, s.format, declcfg.KeepEntryOrder()); err != nil {
			return err
		}
	}
	return nil
}

// packageOrder lists the packages of the blobs as declcfg writes them:
// by name, "" (blobs of no package) last.
func packageOrder(groups map[string]*declcfg.DeclarativeConfig, bundles map[string][]int) []string {
	var names []string
	for n := range groups {
		names = append(names, n)
	}
	for n := range bundles {
		if groups[n] == nil {
			names = append(names, n)
		}
	}
	slices.SortFunc(names, func(a, b string) int {
		if (a == "") != (b == "") {
			return cmp.Compare(b, a) // "" after any name
		}
		return cmp.Compare(a, b)
	})
	return names
}
