package declcfg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
)

// The objects layout stores each bundle object as YAML when the YAML reads
// back to the object's exact bytes. yaml.JSONToYAML, which defines that
// YAML, parses the JSON with the YAML parser, the slowest part of writing
// the layout. objectJSONToYAML builds the same Go value with encoding/json
// instead (maps of interface{} keys, numbers typed as the YAML resolver
// types them) and hands it to the same YAML encoder, so the bytes are the
// same; tests compare the two on every fixture object. Objects where the
// YAML parser would read the JSON differently or fail (characters YAML
// does not allow, escapes it lacks, over-long keys) take the slow path.

// objectJSONToYAML returns yaml.JSONToYAML(obj).
func objectJSONToYAML(obj []byte) ([]byte, error) {
	if v, ok := yamlValueOf(obj); ok {
		if y, err := safeYAMLMarshal(v); err == nil {
			return y, nil
		}
	}
	return safeJSONToYAML(obj)
}

// yamlValueOf decodes obj into the value yaml.Unmarshal gives for it; ok
// is false when that is not certain.
func yamlValueOf(obj []byte) (any, bool) {
	if !yamlReadsAsJSON(obj) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, false
	}
	return yamlTyped(v)
}

// yamlTyped converts a decoded JSON value to yaml.v2's types.
func yamlTyped(v any) (any, bool) {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[any]any, len(t))
		for k, e := range t {
			if len(k) >= 1000 {
				return nil, false // the YAML scanner gives up on simple keys after 1024 bytes
			}
			c, ok := yamlTyped(e)
			if !ok {
				return nil, false
			}
			m[k] = c
		}
		return m, true
	case []any:
		s := make([]any, len(t))
		for i, e := range t {
			c, ok := yamlTyped(e)
			if !ok {
				return nil, false
			}
			s[i] = c
		}
		return s, true
	case json.Number:
		// The YAML resolver: an int if it parses as one (int64 range),
		// else uint64, else float64.
		n := string(t)
		if i, err := strconv.ParseInt(n, 0, 64); err == nil {
			return int(i), true
		}
		if u, err := strconv.ParseUint(n, 0, 64); err == nil {
			return u, true
		}
		if f, err := strconv.ParseFloat(n, 64); err == nil {
			return f, true
		}
		return nil, false // the resolver would keep it a string
	case string, bool, nil:
		return t, true
	}
	return nil, false
}

// yamlReadsAsJSON reports whether the YAML parser reads the JSON text obj
// as JSON does: valid UTF-8 of characters YAML allows, and no string
// escape that YAML lacks (\/) or refuses (UTF-16 surrogates).
func yamlReadsAsJSON(obj []byte) bool {
	if !utf8.Valid(obj) {
		return false
	}
	for i := 0; i < len(obj); i++ {
		c := obj[i]
		switch {
		case c == '\\' && i+1 < len(obj):
			i++
			switch obj[i] {
			case '/':
				return false
			case 'u':
				if i+2 < len(obj) && (obj[i+1] == 'd' || obj[i+1] == 'D') && obj[i+2] >= '8' {
					return false // \uD800-\uDFFF (and beyond: also refused by YAML? then slow path anyway)
				}
			}
		case c == 0x7f, c < 0x20 && c != '\n':
			return false
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(obj[i:])
			if !yamlPrintable(r) {
				return false
			}
			i += size - 1
		}
	}
	return true
}

// yamlPrintable reports whether the YAML parser reads the non-ASCII
// character r inside a quoted scalar as itself: the reader refuses
// control characters, and NEL, LS and PS are line breaks to YAML (folded
// into a space). The byte order mark is left to the slow path too.
func yamlPrintable(r rune) bool {
	return r >= 0xA0 && r <= 0xD7FF && r != 0x2028 && r != 0x2029 || r >= 0xE000 && r <= 0xFFFD && r != 0xFEFF || r >= 0x10000 && r <= 0x10FFFF
}

// safeYAMLMarshal is yaml.v2's Marshal (what sigs.k8s.io/yaml uses)
// guarded against panics.
func safeYAMLMarshal(v any) (_ []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("YAML encoder failure: %v", p)
		}
	}()
	return yamlv2.Marshal(v)
}

// swappedObjectYAML is objectFileContent's YAML case for objects holding
// long base64 strings (icons, embedded manifests): those cost most of the
// YAML encoding and of the YAML read-back check, and a plain one-line
// scalar is emitted and read back alike whatever its length (see
// yamlwrite.go). It swaps them for placeholders, encodes and reads back
// the small document, and puts them back. ok is true only when that
// YAML reads back to obj; otherwise the caller takes the whole way.
func swappedObjectYAML(obj []byte) (y []byte, ok bool) {
	if bytes.Contains(obj, []byte(placeholderPrefix)) {
		return nil, false
	}
	v, ok := yamlValueOf(obj)
	if !ok {
		return nil, false
	}
	var long [][]byte
	var swap func(v any) any
	swap = func(v any) any {
		switch t := v.(type) {
		case map[any]any:
			for k, e := range t {
				t[k] = swap(e)
			}
		case []any:
			for i, e := range t {
				t[i] = swap(e)
			}
		case string:
			if b := []byte(t); swappable(b) && isBase64Text(b) && len(long) < 1e6 {
				long = append(long, b)
				return placeholder(len(long) - 1)
			}
		}
		return v
	}
	v = swap(v)
	if len(long) == 0 {
		return nil, false
	}
	small, err := safeYAMLMarshal(v)
	if err != nil {
		return nil, false
	}
	backSmall, err := objectFromFile(small)
	if err != nil {
		return nil, false
	}
	back, ok := restoreManifests(backSmall, long)
	if !ok || !bytes.Equal(back, obj) {
		return nil, false
	}
	return restoreManifests(small, long)
}

// isBase64Text reports whether b holds base64 characters only. The
// text of every manifest passes here once per write, so blocks of 16
// bytes are checked with one branch: their flags are ANDed.
func isBase64Text(b []byte) bool {
	for len(b) >= 16 {
		_ = b[15]
		t := &base64Flag
		ok := t[b[0]] & t[b[1]] & t[b[2]] & t[b[3]] & t[b[4]] & t[b[5]] & t[b[6]] & t[b[7]] &
			t[b[8]] & t[b[9]] & t[b[10]] & t[b[11]] & t[b[12]] & t[b[13]] & t[b[14]] & t[b[15]]
		if ok == 0 {
			return false
		}
		b = b[16:]
	}
	for _, c := range b {
		if !base64Char[c] {
			return false
		}
	}
	return true
}

// base64Flag is base64Char as 1 and 0.
var base64Flag = func() (t [256]byte) {
	for c, ok := range base64Char {
		if ok {
			t[c] = 1
		}
	}
	return t
}()
