package template

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"

	"github.com/operator-catalog/olmcat/declcfg"
)

// entryLoader is the entries list of a basic or substitutes template: it
// loads each entry as a catalog blob, with its entry index as origin,
// while the document is decoded, so that a template of ten thousand
// entries is not held twice more (as a list of raw entries, then as
// blobs) beside the document.
type entryLoader struct {
	o   options
	cfg *declcfg.DeclarativeConfig
	// err is the first entry that failed to load: it is reported once the
	// document decoded, whose own errors come first.
	err error
	// basic, for a basic template, gathers its bundle entries as they
	// load.
	basic *basicEntries
}

// basicEntries are what a basic template renders: the image of each
// olm.bundle entry and the entry it is, in order, and the packages of its
// olm.package entries. With to (RenderTo's spill) every other blob is
// spilled as its entry loads and the loader's config stays empty: no
// blob of the template is held whole.
type basicEntries struct {
	to       *spill
	refs     []string
	entries  []int
	packages map[string]bool
	// bad is the first bundle entry that is not one (basicEntryError),
	// reported once every entry loaded, after any entry that failed to.
	bad error
}

// UnmarshalJSON loads the entries of raw, a JSON array (null for none);
// anything else fails as decoding it into a list would.
func (l *entryLoader) UnmarshalJSON(raw []byte) error {
	l.cfg, l.err = &declcfg.DeclarativeConfig{}, nil // the last "entries" key wins, as for a list
	if l.basic != nil {
		*l.basic = basicEntries{to: l.basic.to, packages: map[string]bool{}}
		if l.basic.to != nil {
			l.basic.to.blobs = nil // what an earlier "entries" key spilled
		}
	}
	if bytes.Equal(raw, []byte("null")) {
		return nil
	}
	if len(raw) == 0 || raw[0] != '[' {
		var list []json.RawMessage
		return json.Unmarshal(raw, &list)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return err
	}
	for i := 0; dec.More(); i++ {
		var blob json.RawMessage
		if err := dec.Decode(&blob); err != nil {
			return err
		}
		if l.err == nil {
			l.err = l.load(i, blob)
		}
	}
	return nil
}

// load loads entry i.
func (l *entryLoader) load(i int, blob json.RawMessage) error {
	lopts := []declcfg.LoadOption{declcfg.WithBlob(filepath.Base(l.o.file), i, blob)}
	if i > 0 {
		// The first load finished any unfinished write of the root; each
		// further one would list the root and its parent again, once per
		// entry.
		lopts = append(lopts, declcfg.WithRootFinished())
	}
	c, err := declcfg.LoadDir(context.Background(), l.o.root, lopts...)
	if err != nil {
		return &Error{File: l.o.file, Entry: entryName(i), Err: err}
	}
	if l.basic == nil {
		l.cfg.Merge(c)
		return nil
	}
	return l.basic.add(c, l.cfg, l.o)
}

// add takes the blobs of one entry of a basic template: its bundle entry
// is checked and its image kept; any other blob is kept in cfg, or
// spilled.
func (b *basicEntries) add(c, cfg *declcfg.DeclarativeConfig, o options) error {
	for i := range c.Bundles {
		e := &c.Bundles[i]
		if err := basicEntryError(e, o); err != nil && b.bad == nil {
			b.bad = err
		}
		b.refs = append(b.refs, e.Image)
		b.entries = append(b.entries, e.Origin.Index)
	}
	for _, p := range c.Packages {
		b.packages[p.Name] = true
	}
	if b.to == nil {
		cfg.Merge(c)
		return nil
	}
	c.Bundles = nil
	return b.to.addBlobs(c)
}

// loaded returns the entries loaded, or the first that failed to load.
func (l *entryLoader) loaded() (*declcfg.DeclarativeConfig, error) {
	if l.err != nil {
		return nil, l.err
	}
	if l.cfg == nil { // no entries key
		return &declcfg.DeclarativeConfig{}, nil
	}
	return l.cfg, nil
}
