package declcfg

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/operator-catalog/olmcat/internal/jsonscan"
	"github.com/operator-catalog/olmcat/internal/manifest"
)

// resolveBundleObjects fills b.Objects and b.CsvJSON from the bundle's
// olm.bundle.object properties. A ref is read (relative to the directory
// of file, inside the root) and its property rewritten as inline data, so
// that the loaded bundle is the same whatever layout it came from.
// When lean (WithLeanBundles), every object is checked the same way but
// not kept.
func resolveBundleObjects(b *Bundle, r *os.Root, file string, lean bool) error {
	scratch := objectScratch.Get().(*[]byte)
	defer objectScratch.Put(scratch)
	for i := range b.Properties {
		p := &b.Properties[i]
		if p.Type != PropertyBundleObject {
			continue
		}
		v, err := parseBundleObjectInto(*p, scratch)
		if err != nil {
			return fmt.Errorf("property #%d: %w", i, err)
		}
		var obj []byte
		switch {
		case v.Ref != "" && len(v.Data) > 0:
			return fmt.Errorf("property #%d: olm.bundle.object must set one of data and ref, not both", i)
		case v.Ref != "":
			data, err := readRef(r, file, v.Ref)
			if err != nil {
				return fmt.Errorf("property #%d: %w", i, err)
			}
			obj = data
			*p = MustProperty(PropertyBundleObject, BundleObjectValue{Data: data})
		case len(v.Data) > 0:
			obj = v.Data
		default:
			return fmt.Errorf("property #%d: olm.bundle.object has neither data nor ref", i)
		}
		js, kind, err := objectJSON(obj)
		if err != nil {
			return fmt.Errorf("property #%d: olm.bundle.object: %w", i, err)
		}
		if lean {
			p.Value = leanObjectValue
			b.Objects = append(b.Objects, "")
			continue
		}
		o := string(js)
		b.Objects = append(b.Objects, o)
		if kind == manifest.KindCSV && b.CsvJSON == "" {
			b.CsvJSON = o // the same string: no second copy
		}
	}
	return nil
}

// objectJSON returns a bundle object as JSON (unchanged if it already is
// JSON, converted if it is YAML) and its kind.
func objectJSON(obj []byte) ([]byte, string, error) {
	js := obj
	if !jsonscan.Valid(obj) {
		var err error
		js, err = safeYAMLToJSON(obj)
		if err != nil {
			return nil, "", fmt.Errorf("object is neither JSON nor YAML: %w", err)
		}
	}
	kind, err := manifest.Kind(js)
	if err != nil {
		return nil, "", fmt.Errorf("object is not a JSON object: %w", err)
	}
	return js, kind, nil
}

// parseBundleObject decodes an olm.bundle.object value. The common form,
// {"data":"<base64>"}, is decoded in one pass over the base64 text; any
// other goes through encoding/json (ParseValue), which also words the
// errors.
func parseBundleObject(p Property) (BundleObjectValue, error) {
	return parseBundleObjectInto(p, nil)
}

// objectScratch holds the buffers inline objects are decoded into by
// resolveBundleObjects, which keeps only copies (string) of them.
var objectScratch = sync.Pool{New: func() any { return new([]byte) }}

// parseBundleObjectInto is parseBundleObject decoding inline data into
// *scratch (grown as needed) when scratch is not nil: the Data returned
// is then only valid until the next use of scratch.
func parseBundleObjectInto(p Property, scratch *[]byte) (BundleObjectValue, error) {
	if text := inlineData(p.Value); text != nil {
		need := base64.StdEncoding.DecodedLen(len(text))
		var data []byte
		if scratch != nil {
			*scratch = slices.Grow((*scratch)[:0], need)
			data = (*scratch)[:need]
		} else {
			data = make([]byte, need)
		}
		n, err := base64.StdEncoding.Decode(data, text)
		if err == nil {
			return BundleObjectValue{Data: data[:n]}, nil // as encoding/json does
		}
	}
	var v BundleObjectValue
	err := p.ParseValue(&v)
	return v, err
}

// inlineData returns the text of an olm.bundle.object value of the form
// {"data":"<text>"} (any JSON whitespace around the tokens) when the text
// has no escape, so that it is the decoded string as is; nil otherwise.
// It does not look at the characters (the base64 decoder refuses what is
// not base64, and encoding/json decodes such a string with the same
// decoder): finding the quotes is all the scanning it does.
func inlineData(v []byte) []byte {
	i := jsonscan.SkipSpace(v, 0)
	if i >= len(v) || v[i] != '{' {
		return nil
	}
	i = jsonscan.SkipSpace(v, i+1)
	if !bytes.HasPrefix(v[i:], []byte(`"data"`)) {
		return nil
	}
	i = jsonscan.SkipSpace(v, i+len(`"data"`))
	if i >= len(v) || v[i] != ':' {
		return nil
	}
	i = jsonscan.SkipSpace(v, i+1)
	if i >= len(v) || v[i] != '"' {
		return nil
	}
	start := i + 1
	n := bytes.IndexByte(v[start:], '"')
	if n < 0 {
		return nil
	}
	text := v[start : start+n]
	if bytes.IndexByte(text, '\\') >= 0 {
		return nil
	}
	i = jsonscan.SkipSpace(v, start+n+1)
	if i >= len(v) || v[i] != '}' || jsonscan.SkipSpace(v, i+1) != len(v) {
		return nil
	}
	return text
}

// validStdBase64 reports whether text, made of base64 characters only
// (inlineBase64 checked that), decodes with base64.StdEncoding: whole
// four-character groups, "=" only as padding at the very end.
func validStdBase64(text []byte) bool {
	n := len(text)
	if n%4 != 0 {
		return false
	}
	pad := 0
	for pad < n && pad < 2 && text[n-1-pad] == '=' {
		pad++
	}
	return bytes.IndexByte(text[:n-pad], '=') < 0
}

// readRef reads the object file ref names, relative to the directory of
// file. The path must stay inside the root, also through symlinks (the
// os.Root refuses those).
func readRef(r *os.Root, file, ref string) ([]byte, error) {
	if path.IsAbs(ref) || strings.Contains(ref, "\\") || strings.ContainsRune(ref, 0) {
		return nil, fmt.Errorf("ref %q: must be a relative slash-separated path", ref)
	}
	target := path.Join(path.Dir(file), ref)
	if !fs.ValidPath(target) || target == "." {
		return nil, fmt.Errorf("ref %q: escapes the catalog root", ref)
	}
	data, err := r.ReadFile(target)
	if err != nil {
		return nil, fmt.Errorf("ref %q: %w", ref, err)
	}
	obj, err := objectFromFile(data)
	if err != nil {
		return nil, fmt.Errorf("ref %q: %w", ref, err)
	}
	return obj, nil
}

// objectFromFile turns the content of an object file into the object's
// bytes: JSON text is taken as is (surrounding whitespace trimmed), YAML is
// converted to compact JSON with sorted keys. The objects-layout writer
// uses the same function to check that what it writes reads back
// byte-identical.
func objectFromFile(data []byte) ([]byte, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && jsonscan.Valid(trimmed) {
		if trimmed[0] != '{' {
			return nil, errors.New("object is not a JSON object")
		}
		return trimmed, nil
	}
	js, err := safeYAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("decode YAML object: %w", err)
	}
	js = bytes.TrimSpace(js)
	if len(js) == 0 || js[0] != '{' {
		return nil, errors.New("object file does not hold an object")
	}
	return js, nil
}

// decodePlainBundle decodes an olm.bundle blob of the usual shape without
// encoding/json, which validated and skipped every byte of the big
// property values twice more after DecodeStream had already validated
// the blob (addBlob only sees blobs DecodeStream returned: valid JSON
// objects). The shape: only the exact field names of Bundle, each once;
// strings without escapes; properties as objects of exactly "type" and
// "value" with a non-null value. ok is false for anything else, and the
// caller decodes with encoding/json, which gives the same Bundle (tests
// compare) or words the error.
func decodePlainBundle(blob []byte) (b Bundle, ok bool) {
	var seen [6]bool
	once := func(i int) bool {
		if seen[i] {
			return false
		}
		seen[i] = true
		return true
	}
	ok = true
	err := jsonscan.ObjectFields(blob, func(key, val []byte) error {
		var dst *string
		switch string(key) {
		case "schema":
			ok = once(0)
			dst = &b.Schema
		case "name":
			ok = once(1)
			dst = &b.Name
		case "package":
			ok = once(2)
			dst = &b.Package
		case "image":
			ok = once(3)
			dst = &b.Image
		case "properties":
			if ok = once(4); ok {
				b.Properties, ok = plainProperties(val)
			}
		case "relatedImages":
			if ok = once(5) && len(val) > 0 && val[0] == '['; ok {
				var plain bool
				if b.RelatedImages, plain = plainRelatedImages(val); !plain {
					ok = json.Unmarshal(val, &b.RelatedImages) == nil
				}
			}
		default:
			ok = false
		}
		if ok && dst != nil {
			var v []byte
			v, ok = jsonscan.PlainString(val)
			*dst = string(v)
		}
		if !ok {
			return errStop
		}
		return nil
	})
	// encoding/json replaces invalid UTF-8 in strings with U+FFFD; leave
	// such blobs to it rather than copy the bytes as they are.
	if err != nil || !ok || !utf8.Valid(blob) {
		return Bundle{}, false
	}
	return b, true
}

// errStop ends a jsonscan walk early.
var errStop = errors.New("stop")

// plainProperties decodes a properties array of the shape
// decodePlainBundle accepts; values are sub-slices of val, to be copied
// (ownValues) before val is reused.
func plainProperties(val []byte) ([]Property, bool) {
	if len(val) == 0 || val[0] != '[' {
		return nil, false
	}
	props := []Property{}
	err := jsonscan.ArrayElems(val, func(elem []byte) error {
		p, ok := plainProperty(elem)
		if !ok {
			return errStop
		}
		props = append(props, p)
		return nil
	})
	if err != nil {
		return nil, false
	}
	return props, true
}

// plainProperty decodes one property object of exactly "type" (a plain
// string) and a non-null "value".
func plainProperty(elem []byte) (p Property, ok bool) {
	if elem[0] != '{' {
		return Property{}, false
	}
	var hasType, hasValue bool
	ok = true
	err := jsonscan.ObjectFields(elem, func(key, v []byte) error {
		switch string(key) {
		case "type":
			if hasType {
				ok = false
				break
			}
			hasType = true
			var t []byte
			t, ok = jsonscan.PlainString(v)
			p.Type = string(t)
		case "value":
			if hasValue || len(v) == 0 || v[0] == 'n' {
				ok = false
				break
			}
			hasValue = true
			p.Value = v // aliases elem: addBlob copies it (ownValues)
		default:
			ok = false
		}
		if !ok {
			return errStop
		}
		return nil
	})
	return p, err == nil && ok
}

// plainRelatedImages decodes a relatedImages array whose elements are
// objects of at most "name" and "image", each once, as plain strings;
// ok is false for anything else (the caller uses encoding/json, which
// gives the same slice for what this accepts).
func plainRelatedImages(val []byte) ([]RelatedImage, bool) {
	out := []RelatedImage{}
	err := jsonscan.ArrayElems(val, func(elem []byte) error {
		if elem[0] != '{' {
			return errStop
		}
		var ri RelatedImage
		var seen [2]bool
		err := jsonscan.ObjectFields(elem, func(key, v []byte) error {
			var dst *string
			switch k := string(key); {
			case k == "name" && !seen[0]:
				seen[0], dst = true, &ri.Name
			case k == "image" && !seen[1]:
				seen[1], dst = true, &ri.Image
			default:
				return errStop
			}
			s, ok := jsonscan.PlainString(v)
			if !ok {
				return errStop
			}
			*dst = string(s)
			return nil
		})
		out = append(out, ri)
		return err
	})
	return out, err == nil
}

// ResolveBundleObjects fills Objects and CsvJSON of every bundle of cfg
// that has none from its inline olm.bundle.object properties, as loading
// a directory does: a catalog made in memory (converted from a sqlite
// index, say) then converts to the same model.
func (cfg *DeclarativeConfig) ResolveBundleObjects() error {
	for i := range cfg.Bundles {
		b := &cfg.Bundles[i]
		if len(b.Objects) > 0 {
			continue
		}
		if err := resolveBundleObjects(b, nil, "", false); err != nil {
			return fmt.Errorf("bundle %q: %w", b.Name, err)
		}
	}
	return nil
}
