package declcfg

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
)

// Format is the encoding of written blob streams.
type Format string

// Formats of written blob streams.
const (
	FormatJSON Format = "json"
	FormatYAML Format = "yaml"
)

// ParseFormat checks a user-supplied format name.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case FormatJSON, FormatYAML:
		return f, nil
	}
	return "", fmt.Errorf("unknown output format %q (want %s or %s)", s, FormatJSON, FormatYAML)
}

// Ext returns the file extension (without dot) of the format.
func (f Format) Ext() string { return string(f) }

// SortConfig puts cfg in opm's order, in place: packages by name; channels
// by package then name with their entries by bundle name; bundles by
// package then name; others by package then schema; deprecations by
// package. Sorting is stable, so equal keys keep their loaded order.
func SortConfig(cfg *DeclarativeConfig) {
	slices.SortStableFunc(cfg.Packages, func(a, b Package) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortStableFunc(cfg.Channels, func(a, b Channel) int {
		return cmp.Or(cmp.Compare(a.Package, b.Package), cmp.Compare(a.Name, b.Name))
	})
	for i := range cfg.Channels {
		sortEntries(cfg.Channels[i].Entries)
	}
	slices.SortStableFunc(cfg.Bundles, func(a, b Bundle) int {
		return cmp.Or(cmp.Compare(a.Package, b.Package), cmp.Compare(a.Name, b.Name))
	})
	slices.SortStableFunc(cfg.Others, func(a, b Meta) int {
		return cmp.Or(cmp.Compare(a.Package, b.Package), cmp.Compare(a.Schema, b.Schema))
	})
	slices.SortStableFunc(cfg.Deprecations, func(a, b Deprecation) int { return cmp.Compare(a.Package, b.Package) })
}

func sortEntries(e []ChannelEntry) {
	slices.SortStableFunc(e, func(a, b ChannelEntry) int { return cmp.Compare(a.Name, b.Name) })
}

// forEachBlob calls fn with every blob of cfg in opm's write order without
// modifying cfg: per package name (sorted): olm.package, olm.channel by
// name (entries by name), olm.bundle by name, others by schema,
// olm.deprecations; blobs without a package come last.
func forEachBlob(cfg *DeclarativeConfig, o streamOptions, fn func(v any) error) error {
	for g := range byPackage(cfg) {
		if err := g.each(cfg, o, fn); err != nil {
			return err
		}
	}
	return nil
}

// each calls fn with the group's blobs in opm's order: the package,
// channels by name (entries sorted), bundles by name, others by schema,
// deprecations.
func (g *packageGroup) each(cfg *DeclarativeConfig, o streamOptions, fn func(v any) error) error {
	for _, i := range g.packages {
		if err := fn(&cfg.Packages[i]); err != nil {
			return err
		}
	}
	sort.SliceStable(g.channels, func(a, b int) bool {
		return cfg.Channels[g.channels[a]].Name < cfg.Channels[g.channels[b]].Name
	})
	for _, i := range g.channels {
		c := cfg.Channels[i]
		if !o.keepEntryOrder && !slices.IsSortedFunc(c.Entries, func(a, b ChannelEntry) int { return cmp.Compare(a.Name, b.Name) }) {
			c.Entries = slices.Clone(c.Entries)
			sortEntries(c.Entries)
		}
		if err := fn(&c); err != nil {
			return err
		}
	}
	sort.SliceStable(g.bundles, func(a, b int) bool {
		return cfg.Bundles[g.bundles[a]].Name < cfg.Bundles[g.bundles[b]].Name
	})
	for _, i := range g.bundles {
		if err := fn(&cfg.Bundles[i]); err != nil {
			return err
		}
	}
	sort.SliceStable(g.others, func(a, b int) bool {
		return cfg.Others[g.others[a]].Schema < cfg.Others[g.others[b]].Schema
	})
	for _, i := range g.others {
		if err := fn(cfg.Others[i]); err != nil {
			return err
		}
	}
	for _, i := range g.deprecations {
		if err := fn(&cfg.Deprecations[i]); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON writes every blob of cfg to w in opm's order and opm's JSON
// form: a stream of objects indented by four spaces, struct field order,
// HTML characters not escaped. cfg is not modified.
func WriteJSON(w io.Writer, cfg *DeclarativeConfig, opts ...StreamOption) error {
	enc := newJSONEncoder(w)
	bp := blobPool.Get().(*[]byte)
	buf := (*bp)[:0]
	defer func() {
		*bp = buf[:0]
		blobPool.Put(bp)
	}()
	return forEachBlob(cfg, makeStreamOptions(opts), func(v any) error {
		if bd, ok := v.(*Bundle); ok {
			// Bundles carry the big manifests: see jsonwrite.go.
			var err error
			if buf, err = appendBundleJSON(buf[:0], bd); err != nil {
				return fmt.Errorf("write %s: %w", describeBlob(v), err)
			}
			_, err = w.Write(buf)
			return err
		}
		if err := enc.Encode(v); err != nil {
			return fmt.Errorf("write %s: %w", describeBlob(v), err)
		}
		return nil
	})
}

func newJSONEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "    ")
	enc.SetEscapeHTML(false)
	return enc
}

// WriteYAML writes every blob of cfg to w in opm's order and opm's YAML
// form: each document prefixed by "---", keys in alphabetical order (the
// blob's JSON converted to YAML). cfg is not modified.
func WriteYAML(w io.Writer, cfg *DeclarativeConfig, opts ...StreamOption) error {
	var buf bytes.Buffer
	return forEachBlob(cfg, makeStreamOptions(opts), func(v any) error {
		var y []byte
		var err error
		if bd, ok := v.(*Bundle); ok {
			y, err = bundleYAML(bd, &buf) // see yamlwrite.go
		} else {
			y, err = blobYAML(v, &buf)
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", describeBlob(v), err)
		}
		if _, err := io.WriteString(w, "---\n"); err != nil {
			return err
		}
		_, err = w.Write(y)
		return err
	})
}

// WriteStream writes cfg to w in format f (WriteJSON or WriteYAML).
func WriteStream(w io.Writer, cfg *DeclarativeConfig, f Format, opts ...StreamOption) error {
	switch f {
	case FormatJSON, "":
		return WriteJSON(w, cfg, opts...)
	case FormatYAML:
		return WriteYAML(w, cfg, opts...)
	}
	return fmt.Errorf("unknown output format %q", f)
}

// StreamOption configures WriteJSON, WriteYAML and WriteStream.
type StreamOption func(*streamOptions)

type streamOptions struct{ keepEntryOrder bool }

func makeStreamOptions(opts []StreamOption) streamOptions {
	var o streamOptions
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// KeepEntryOrder writes channel entries in their order in cfg instead of
// by name. opm sorts entries only where it builds channels from its
// model (migrate, render of a sqlite index); what a template renders is
// written in the template's (or the generated) order.
func KeepEntryOrder() StreamOption { return func(o *streamOptions) { o.keepEntryOrder = true } }

// describeBlob names a blob for error messages.
func describeBlob(v any) string {
	switch b := v.(type) {
	case *Package:
		return fmt.Sprintf("%s %q", SchemaPackage, b.Name)
	case *Channel:
		return fmt.Sprintf("%s %s/%s", SchemaChannel, b.Package, b.Name)
	case *Bundle:
		return fmt.Sprintf("%s %s/%s", SchemaBundle, b.Package, b.Name)
	case *Deprecation:
		return fmt.Sprintf("%s %s", SchemaDeprecations, b.Package)
	case Meta:
		return fmt.Sprintf("%s %s/%s", b.Schema, b.Package, b.Name)
	}
	return fmt.Sprintf("%T", v)
}
