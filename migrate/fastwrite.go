package migrate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"unicode/utf8"

	"github.com/operator-catalog/olmcat/declcfg"
)

// This file writes one converted package in opm's JSON format (what
// declcfg.WriteStream writes: every blob indented by four spaces, HTML
// characters not escaped, opm's blob order) without going through
// encoding/json for the bundle blobs. Profiling a 10,000-bundle migration
// showed encoding/json spending about half of the total CPU re-validating
// and re-indenting the base64 manifests of olm.bundle.object values,
// which this package built itself and knows to be plain strings. Small
// blobs (package, channels, deprecations) and any value that is not such
// a manifest still go through encoding/json. Tests compare the output
// byte for byte with declcfg.WriteStream on every fixture.

// fastJSON reports whether writePackageJSON can write the package: the
// opm layout in JSON, for a DNS-1123 package name (a safe path element as
// is), which every package that converted without problems has.
func fastJSON(o *options, pkg string) bool {
	return o.layout == declcfg.LayoutOPM && o.format == declcfg.FormatJSON && dns1123Label.MatchString(pkg) && len(pkg) <= 63
}

// writePackageJSON writes cfg (one converted package, blobs already in
// opm's order) to <root>/<package>/catalog.json.
func writePackageJSON(root string, cfg *declcfg.DeclarativeConfig) error {
	pkg := cfg.Packages[0].Name
	dir := filepath.Join(root, pkg)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, "catalog.json")
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	bw := writerPool.Get().(*bufio.Writer)
	bw.Reset(fh)
	err = encodePackageJSON(bw, cfg)
	if err == nil {
		err = bw.Flush()
	}
	bw.Reset(nil)
	writerPool.Put(bw)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// writerPool recycles file buffers between packages: a fresh 64 KiB
// buffer per package file added up to a tenth of a migration's
// allocations. Bundle blobs bigger than the buffer bypass it anyway.
var writerPool = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 64*1024) }}

// blobPool recycles the buffer bundle blobs are assembled in.
var blobPool = sync.Pool{New: func() any { b := make([]byte, 0, 64*1024); return &b }}

// encodePackageJSON writes the blobs of one converted package.
func encodePackageJSON(w *bufio.Writer, cfg *declcfg.DeclarativeConfig) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "    ")
	enc.SetEscapeHTML(false)
	for i := range cfg.Packages {
		if err := enc.Encode(&cfg.Packages[i]); err != nil {
			return err
		}
	}
	for i := range cfg.Channels {
		if err := enc.Encode(&cfg.Channels[i]); err != nil {
			return err
		}
	}
	bp := blobPool.Get().(*[]byte)
	defer func() { blobPool.Put(bp) }()
	buf := (*bp)[:0]
	defer func() { *bp = buf[:0] }()
	for i := range cfg.Bundles {
		var err error
		buf, err = appendBundleJSON(buf[:0], &cfg.Bundles[i])
		if err != nil {
			return fmt.Errorf("bundle %s: %w", cfg.Bundles[i].Name, err)
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	for i := range cfg.Deprecations {
		if err := enc.Encode(&cfg.Deprecations[i]); err != nil {
			return err
		}
	}
	return nil
}

const (
	indent1 = "\n    "
	indent2 = "\n        "
	indent3 = "\n            "
)

// appendBundleJSON appends the olm.bundle blob as encoding/json with a
// four-space indent would, followed by a newline.
func appendBundleJSON(b []byte, bd *declcfg.Bundle) ([]byte, error) {
	b = append(b, '{')
	b = append(b, indent1+`"schema": `...)
	b = appendString(b, bd.Schema)
	b = append(b, ","+indent1+`"name": `...)
	b = appendString(b, bd.Name)
	b = append(b, ","+indent1+`"package": `...)
	b = appendString(b, bd.Package)
	b = append(b, ","+indent1+`"image": `...)
	b = appendString(b, bd.Image)
	if len(bd.Properties) > 0 {
		b = append(b, ","+indent1+`"properties": [`...)
		for i, p := range bd.Properties {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, indent2+"{"+indent3+`"type": `...)
			b = appendString(b, p.Type)
			b = append(b, ","+indent3+`"value": `...)
			var err error
			if b, err = appendValue(b, p); err != nil {
				return nil, err
			}
			b = append(b, indent2+"}"...)
		}
		b = append(b, indent1+"]"...)
	}
	if len(bd.RelatedImages) > 0 {
		b = append(b, ","+indent1+`"relatedImages": [`...)
		for i, ri := range bd.RelatedImages {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, indent2+"{"+indent3+`"name": `...)
			b = appendString(b, ri.Name)
			b = append(b, ","+indent3+`"image": `...)
			b = appendString(b, ri.Image)
			b = append(b, indent2+"}"...)
		}
		b = append(b, indent1+"]"...)
	}
	b = append(b, "\n}\n"...)
	return b, nil
}

// appendValue appends a property value indented at the depth of a
// property value inside a bundle blob.
func appendValue(b []byte, p declcfg.Property) ([]byte, error) {
	const prefix, open = `{"data":"`, `"}`
	v := p.Value
	if p.Type == declcfg.PropertyBundleObject && len(v) >= len(prefix)+len(open) &&
		string(v[:len(prefix)]) == prefix && string(v[len(v)-len(open):]) == open &&
		plainBase64(v[len(prefix):len(v)-len(open)]) {
		b = append(b, "{"+indent3+`    "data": "`...)
		b = append(b, v[len(prefix):len(v)-len(open)]...)
		return append(b, `"`+indent3+"}"...), nil
	}
	if !validJSON(v) {
		return nil, fmt.Errorf("%s property value is not valid JSON", p.Type)
	}
	return appendIndented(b, v, 3), nil
}

// appendIndented appends the valid JSON value v indented as encoding/json's
// Indent does with a four-space indent, starting at depth (the value's
// first line is not indented; empty objects and arrays stay "{}" and
// "[]"). Whitespace outside strings is dropped, so v need not be compact.
func appendIndented(b, v []byte, depth int) []byte {
	newline := func(b []byte, d int) []byte {
		b = append(b, '\n')
		for range d {
			b = append(b, "    "...)
		}
		return b
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch c {
		case ' ', '\t', '\n', '\r':
		case '"':
			end, _ := skipString(v, i)
			b = append(b, v[i:end]...)
			i = end - 1
		case '{', '[':
			j := skipSpace(v, i+1)
			if j < len(v) && (v[j] == '}' || v[j] == ']') {
				b = append(b, c, v[j])
				i = j
				continue
			}
			depth++
			b = append(b, c)
			b = newline(b, depth)
		case '}', ']':
			depth--
			b = newline(b, depth)
			b = append(b, c)
		case ',':
			b = append(b, ',')
			b = newline(b, depth)
		case ':':
			b = append(b, ':', ' ')
		default:
			b = append(b, c)
		}
	}
	return b
}

// plainBase64 reports whether s holds only standard base64 characters, so
// that it is a JSON string body needing no escapes.
func plainBase64(s []byte) bool {
	for _, c := range s {
		if !base64Char[c] {
			return false
		}
	}
	return true
}

var base64Char = func() (t [256]bool) {
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") {
		t[c] = true
	}
	return t
}()

// appendString appends s as a JSON string the way encoding/json does with
// HTML escaping off.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(s)
			return append(b, bytes.TrimRight(buf.Bytes(), "\n")...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
