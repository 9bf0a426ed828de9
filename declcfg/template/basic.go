package template

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/operator-catalog/olmcat/declcfg"
)

// basicTemplate is the olm.template.basic document.
type basicTemplate struct {
	Schema  string      `json:"schema"`
	Entries entryLoader `json:"entries"`
}

// renderBasic loads the entries as catalog blobs and replaces every
// olm.bundle entry, which may only carry schema and image, by the
// rendered bundle. Other blobs pass through unchanged. Rendered by
// RenderTo (the keeper a spill), the blobs are spilled as they load and
// as they render, and the config returned is empty.
func renderBasic(ctx context.Context, doc json.RawMessage, o options) (*declcfg.DeclarativeConfig, error) {
	sp, _ := o.keep.(*spill)
	entries := &basicEntries{to: sp}
	bt := basicTemplate{Entries: entryLoader{o: o, basic: entries}}
	if err := json.Unmarshal(doc, &bt); err != nil {
		return nil, &Error{File: o.file, Err: fmt.Errorf("decode template: %w", err)}
	}
	cfg, err := bt.Entries.loaded()
	if err != nil {
		return nil, err
	}
	if entries.bad != nil {
		return nil, entries.bad
	}
	refs := entries.refs
	where := func(i int) (string, string) { return entryName(entries.entries[i]), "image" }
	if sp != nil {
		sp.lean = true
	}
	rendered, err := renderAll(ctx, refs, o, false, where)
	if err != nil {
		return nil, err
	}
	for i, b := range rendered {
		name, pkg := b.Name, b.Package
		if sp != nil {
			name, pkg = sp.recs[i].name, sp.recs[i].pkg
		}
		if len(entries.packages) > 0 && !entries.packages[pkg] {
			return nil, &Error{File: o.file, Entry: entryName(entries.entries[i]), Field: "image",
				Err: fmt.Errorf("%q renders bundle %s of package %q, which the template has no olm.package entry for", refs[i], name, pkg)}
		}
		if sp == nil {
			cfg.Bundles[i] = *b
		}
	}
	return cfg, nil
}

// basicEntryError is why a bundle entry of a basic template is not one:
// it may only name the bundle image to render.
func basicEntryError(b *declcfg.Bundle, o options) error {
	entry := entryName(b.Origin.Index)
	switch {
	case b.Image == "":
		return &Error{File: o.file, Entry: entry, Field: "image", Err: errors.New("missing: a basic template bundle entry names the bundle image to render")}
	case b.Package != "":
		return &Error{File: o.file, Entry: entry, Field: "package", Err: errUnexpectedBundleField}
	case len(b.Properties) > 0:
		return &Error{File: o.file, Entry: entry, Field: "properties", Err: errUnexpectedBundleField}
	case len(b.RelatedImages) > 0:
		return &Error{File: o.file, Entry: entry, Field: "relatedImages", Err: errUnexpectedBundleField}
	}
	return nil
}

// errUnexpectedBundleField is opm's complaint about a basic template
// bundle entry that carries more than schema and image.
var errUnexpectedBundleField = errors.New("unexpected fields present in basic template bundle (a bundle entry holds only schema and image)")

func entryName(i int) string { return fmt.Sprintf("entries[%d]", i) }

// renderAll renders refs with up to o.limit at once and hands each
// bundle to o.keep as it is rendered; the result, what the keeper kept,
// is in refs order. Only the semver template reads a bundle's CSV (the
// package icon): without csv it is dropped. where names the entry and
// field of ref i for errors; the first failing ref in order is reported.
func renderAll(ctx context.Context, refs []string, o options, csv bool, where func(i int) (entry, field string)) ([]*declcfg.Bundle, error) {
	out := make([]*declcfg.Bundle, len(refs))
	errs := make([]error, len(refs))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	done := make(chan struct{})
	workers := min(o.limit, len(refs))
	for w := 0; w < workers; w++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range next {
				b, err := o.render(ctx, refs[i])
				if err == nil && b == nil {
					err = errors.New("renders no bundle")
				}
				if err == nil {
					// The objects are in the properties already; the
					// copies are only kept for the CSV (package icon).
					b.Objects = nil
					if !csv {
						b.CsvJSON = ""
					}
					b, err = o.keep.keep(i, b)
				}
				if err != nil {
					errs[i] = err
					cancel()
					continue
				}
				out[i] = b
			}
		}()
	}
feed:
	for i := range refs {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	for w := 0; w < workers; w++ {
		<-done
	}
	for i, err := range errs {
		if err != nil {
			entry, field := where(i)
			return nil, &Error{File: o.file, Entry: entry, Field: field, Err: fmt.Errorf("render %q: %w", refs[i], err)}
		}
	}
	for _, b := range out {
		if b == nil { // the caller's context ended
			return nil, ctx.Err()
		}
	}
	return out, nil
}
