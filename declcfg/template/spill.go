package template

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/scratchfile"
)

// spill is RenderTo's keeper: each rendered bundle is written, formatted
// as the output wants it, to a file as it is rendered, and so is every
// other blob of a basic template as its entry loads (packages, channels,
// ...) and the blobs a semver template generates. The render holds a
// record of each blob (its package, the name or schema the output is
// sorted by, where it is in the file), all the output's order needs, and
// for the semver template a stand-in of each bundle (name, package, the
// olm.package properties): memory grows neither with the bundles'
// manifests nor with the template's channels.
type spill struct {
	f      *scratchfile.File
	format declcfg.Format
	// lean: keep returns spilledBundle instead of a stand-in; the basic
	// template reads the records instead (names and packages).
	lean bool

	mu    sync.Mutex
	recs  []spilled         // the rendered bundles, by render index
	blobs []spilledBlob     // the other blobs, in the order they came
	pkgs  map[string]string // one copy of each package name
}

// spilled is where rendered bundle i is in the spill file: its formatted
// blob and its CSV (kept for the semver template's package icon).
type spilled struct {
	name, pkg   string
	blob, csv   int64 // offsets
	nBlob, nCSV int64
}

// blobKind is the kind of a blob other than a bundle, in the order
// declcfg writes a package's blobs (bundles between channels and others).
type blobKind uint8

const (
	kindPackage blobKind = iota
	kindChannel
	kindOther
	kindDeprecation
)

// spilledBlob is where a blob other than a bundle is in the spill file.
type spilledBlob struct {
	kind blobKind
	// pkg is the blob's package; key what declcfg sorts the package's
	// blobs of this kind by (a channel's name, another blob's schema).
	pkg, key string
	off, n   int64
	// err is why the blob could not be formatted: the write fails with
	// it before writing anything, as declcfg's writers do.
	err error
}

// spilledBundle is what a lean spill keeps of each rendered bundle in the
// render's results: nothing (the record has its name and package).
var spilledBundle = &declcfg.Bundle{}

// newSpill creates the spill file in dir.
func newSpill(dir string, f declcfg.Format) (*spill, error) {
	fh, err := scratchfile.New(dir)
	if err != nil {
		return nil, err
	}
	return &spill{f: fh, format: f, pkgs: map[string]string{}}, nil
}

// close drops the spill file.
func (s *spill) close() error { return s.f.Close() }

// used tells whether anything went to the spill file (a substitutes
// template renders in memory).
func (s *spill) used() bool { return len(s.recs) > 0 || len(s.blobs) > 0 }

// appendLocked writes data at the end of the spill file and returns
// where; s.mu is held, so that records are in the order of the file.
func (s *spill) appendLocked(data []byte) (int64, error) {
	off, err := s.f.Append(data)
	if err != nil {
		return 0, fmt.Errorf("spill rendered blob: %w", err)
	}
	return off, nil
}

// internLocked returns the one copy of package name pkg; s.mu is held.
func (s *spill) internLocked(pkg string) string {
	if p, ok := s.pkgs[pkg]; ok {
		return p
	}
	p := strings.Clone(pkg)
	s.pkgs[p] = p
	return p
}

func (s *spill) keep(i int, b *declcfg.Bundle) (*declcfg.Bundle, error) {
	var buf bytes.Buffer
	if err := declcfg.WriteStream(&buf, &declcfg.DeclarativeConfig{Bundles: []declcfg.Bundle{*b}}, s.format); err != nil {
		return nil, err
	}
	nBlob := int64(buf.Len())
	buf.WriteString(b.CsvJSON)
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= len(s.recs) { // the number of refs is known once the template is parsed
		s.recs = append(s.recs, make([]spilled, i+1-len(s.recs))...)
	}
	off, err := s.appendLocked(buf.Bytes())
	if err != nil {
		return nil, err
	}
	r := spilled{name: strings.Clone(b.Name), pkg: s.internLocked(b.Package), blob: off, nBlob: nBlob, csv: off + nBlob, nCSV: int64(buf.Len()) - nBlob}
	s.recs[i] = r
	if s.lean {
		return spilledBundle, nil
	}
	// The stand-in copies what it keeps: a string or value that is part
	// of a larger one (the bundle's manifests) would hold all of it.
	stand := &declcfg.Bundle{Schema: b.Schema, Name: r.name, Package: r.pkg}
	for _, p := range b.Properties {
		if p.Type == declcfg.PropertyPackage {
			stand.Properties = append(stand.Properties, declcfg.Property{Type: p.Type, Value: bytes.Clone(p.Value)})
		}
	}
	return stand, nil
}

// full reads the bundle named as b back (the semver template's default
// channel head, once; bundle names are unique there).
func (s *spill) full(b *declcfg.Bundle) (*declcfg.Bundle, error) {
	s.mu.Lock()
	i := slices.IndexFunc(s.recs, func(r spilled) bool { return r.name == b.Name })
	s.mu.Unlock()
	if i < 0 {
		return b, nil
	}
	r := s.recs[i]
	data := make([]byte, r.nBlob+r.nCSV)
	if err := s.f.ReadAt(data, r.blob); err != nil {
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

// addBlobs spills every blob of cfg but its bundles, each formatted on its
// own (declcfg's writers write blob after blob) in cfg's order.
func (s *spill) addBlobs(cfg *declcfg.DeclarativeConfig) error {
	for i := range cfg.Packages {
		p := &cfg.Packages[i]
		if err := s.addBlob(kindPackage, p.Name, "", &declcfg.DeclarativeConfig{Packages: cfg.Packages[i : i+1]}); err != nil {
			return err
		}
	}
	for i := range cfg.Channels {
		c := &cfg.Channels[i]
		if err := s.addBlob(kindChannel, c.Package, c.Name, &declcfg.DeclarativeConfig{Channels: cfg.Channels[i : i+1]}); err != nil {
			return err
		}
	}
	for i := range cfg.Others {
		m := &cfg.Others[i]
		if err := s.addBlob(kindOther, m.Package, m.Schema, &declcfg.DeclarativeConfig{Others: cfg.Others[i : i+1]}); err != nil {
			return err
		}
	}
	for i := range cfg.Deprecations {
		d := &cfg.Deprecations[i]
		if err := s.addBlob(kindDeprecation, d.Package, "", &declcfg.DeclarativeConfig{Deprecations: cfg.Deprecations[i : i+1]}); err != nil {
			return err
		}
	}
	return nil
}

// addBlob formats the one blob of one and spills it. A blob that cannot
// be formatted is recorded with its error, for the write to fail on.
func (s *spill) addBlob(kind blobKind, pkg, key string, one *declcfg.DeclarativeConfig) error {
	var buf bytes.Buffer
	ferr := declcfg.WriteStream(&buf, one, s.format, declcfg.KeepEntryOrder())
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := spilledBlob{kind: kind, pkg: s.internLocked(pkg), key: strings.Clone(key), err: ferr}
	if ferr == nil {
		off, err := s.appendLocked(buf.Bytes())
		if err != nil {
			return err
		}
		rec.off, rec.n = off, int64(buf.Len())
	}
	s.blobs = append(s.blobs, rec)
	return nil
}

// section is one blob of the output: n bytes of the spill file at off.
type section struct{ off, n int64 }

// order lists the spilled blobs in declcfg's write order: packages by
// name (blobs of no package last), each with its olm.package blobs and
// its channels by name, bundles by name, other blobs by schema and
// deprecations, each kind in the order spilled where keys are equal. A
// blob that could not be formatted fails it, the first in that order.
func (s *spill) order() ([]section, error) {
	type group struct{ blobs [4][]int } // by kind, indexes into s.blobs
	groups := map[string]*group{}
	bundles := map[string][]int{} // by package, indexes into s.recs
	at := func(pkg string) *group {
		if groups[pkg] == nil {
			groups[pkg] = &group{}
		}
		return groups[pkg]
	}
	for i, b := range s.blobs {
		g := at(b.pkg)
		g.blobs[b.kind] = append(g.blobs[b.kind], i)
	}
	for i, r := range s.recs {
		at(r.pkg)
		bundles[r.pkg] = append(bundles[r.pkg], i)
	}
	names := make([]string, 0, len(groups))
	for n := range groups {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		if (a == "") != (b == "") {
			return cmp.Compare(b, a) // "" after any name
		}
		return cmp.Compare(a, b)
	})
	byKey := func(a, b int) int { return cmp.Compare(s.blobs[a].key, s.blobs[b].key) }
	out := make([]section, 0, len(s.blobs)+len(s.recs))
	for _, n := range names {
		g := groups[n]
		slices.SortStableFunc(g.blobs[kindChannel], byKey)
		slices.SortStableFunc(g.blobs[kindOther], byKey)
		idx := bundles[n]
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(s.recs[a].name, s.recs[b].name) })
		for _, kind := range []blobKind{kindPackage, kindChannel} {
			for _, i := range g.blobs[kind] {
				if s.blobs[i].err != nil {
					return nil, s.blobs[i].err
				}
				out = append(out, section{s.blobs[i].off, s.blobs[i].n})
			}
		}
		for _, i := range idx {
			out = append(out, section{s.recs[i].blob, s.recs[i].nBlob})
		}
		for _, kind := range []blobKind{kindOther, kindDeprecation} {
			for _, i := range g.blobs[kind] {
				if s.blobs[i].err != nil {
					return nil, s.blobs[i].err
				}
				out = append(out, section{s.blobs[i].off, s.blobs[i].n})
			}
		}
	}
	return out, nil
}

// write copies the spilled blobs to w in declcfg's write order. Every
// blob was formatted before anything is written, so a blob that cannot
// be written fails before the output starts.
func (s *spill) write(w io.Writer) error {
	secs, err := s.order()
	if err != nil {
		return err
	}
	for _, sec := range secs {
		r, err := s.f.Section(sec.off, sec.n)
		if err != nil {
			return err
		}
		if _, err := io.Copy(w, r); err != nil {
			return err
		}
	}
	return nil
}
