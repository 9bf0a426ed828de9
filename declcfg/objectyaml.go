package declcfg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/operator-catalog/olmcat/internal/yamljson"
	yamlv2 "go.yaml.in/yaml/v2"
)

// The objects layout stores each bundle object as YAML when the YAML reads
// back to the object's exact bytes. yaml.JSONToYAML, which defines that
// YAML, parses the JSON with the YAML parser, the slowest part of writing
// the layout. objectJSONToYAML builds the same Go value with encoding/json
// instead (maps of interface{} keys, numbers typed as the YAML resolver
// types them) and hands it to the same YAML encoder, so the bytes are the
// same; tests compare the two on every fixture object. Objects where the
// YAML parser would read the JSON differently or fail (yamljson: characters
// YAML does not allow, escapes it lacks, keys it does not see as keys)
// take the slow path.

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
// is false when that is not certain. Any JSON number is taken
// (yamljson.AnyNumbers): yamlTyped types it as YAML's resolver does.
func yamlValueOf(obj []byte) (any, bool) {
	if !yamljson.ReadsAsJSON(obj, yamljson.AnyNumbers) {
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

// yamlTyped converts a decoded JSON value to yaml.v2's types. Its keys
// need no check: yamljson.ReadsAsJSON took only keys YAML reads as keys.
func yamlTyped(v any) (any, bool) {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[any]any, len(t))
		for k, e := range t {
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
