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
}

// UnmarshalJSON loads the entries of raw, a JSON array (null for none);
// anything else fails as decoding it into a list would.
func (l *entryLoader) UnmarshalJSON(raw []byte) error {
	l.cfg, l.err = &declcfg.DeclarativeConfig{}, nil // the last "entries" key wins, as for a list
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
	l.cfg.Merge(c)
	return nil
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
