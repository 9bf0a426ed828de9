package declcfg

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/operator-catalog/olmcat/internal/jsonscan"
)

// This file writes olm.bundle blobs in opm's JSON form (what encoding/json
// writes with a four-space indent and HTML escaping off) by hand, so that
// the base64 manifests of olm.bundle.object values, most of a catalog's
// bytes, are copied once instead of being validated, compacted and
// re-indented by encoding/json. A value that is such a manifest
// ({"data": "<base64>"}) is copied as is; any other property value is
// checked with jsonscan.Valid and re-indented here; the small blobs
// (package, channels, deprecations, others) still go through
// encoding/json. Tests compare the output byte for byte with encoding/json.

// writerPool recycles file buffers between package files, so that writing
// a catalog allocates buffers per worker, not per package file. Bundle
// blobs bigger than the buffer bypass it anyway.
var writerPool = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 64*1024) }}

// blobPool recycles the buffer bundle blobs are assembled in.
var blobPool = sync.Pool{New: func() any { b := make([]byte, 0, 64*1024); return &b }}

const (
	indent1 = "\n    "
	indent2 = "\n        "
	indent3 = "\n            "
)

// appendBundleJSON appends the olm.bundle blob as encoding/json with a
// four-space indent and HTML escaping off would, followed by a newline.
func appendBundleJSON(b []byte, bd *Bundle) ([]byte, error) {
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

// inlineBase64 returns the base64 text of an olm.bundle.object value of
// the form {"data":"<base64>"} (any JSON whitespace around the tokens),
// or nil when v is not of that form or the text needs JSON escapes.
func inlineBase64(v []byte) []byte {
	text := inlineData(v)
	if !isBase64Text(text) {
		return nil
	}
	return text
}

// appendValue appends a property value indented at the depth of a
// property value inside a bundle blob.
func appendValue(b []byte, p Property) ([]byte, error) {
	v := p.Value
	if len(v) == 0 {
		return append(b, "null"...), nil // what encoding/json writes for a nil RawMessage
	}
	if p.Type == PropertyBundleObject {
		if data := inlineBase64(v); data != nil {
			b = append(b, "{"+indent3+`    "data": "`...)
			b = append(b, data...)
			return append(b, `"`+indent3+"}"...), nil
		}
	}
	if !jsonscan.Valid(v) {
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
			end, _ := jsonscan.SkipString(v, i) // v is valid: the string ends
			b = append(b, v[i:end]...)
			i = end - 1
		case '{', '[':
			j := jsonscan.SkipSpace(v, i+1)
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
