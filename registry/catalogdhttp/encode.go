package catalogdhttp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Keys are the top-level schema, package and name of a blob, the three
// keys /metas filters on ("" where the blob has none). A blob without a
// schema is served by /all, never by a filtered query.
type Keys struct {
	Schema, Package, Name string
}

// Encode re-encodes one blob as catalogd serves it: decoded into a
// generic map and encoded again, so keys come out sorted at every level,
// compact, without HTML escaping, numbers through float64 (1.0 -> 1,
// 12345678901234567890 -> 12345678901234567000), U+2028/U+2029 escaped,
// invalid UTF-8 replaced, with a trailing newline. It also reads the
// blob's Keys as catalogd does: case-insensitively, refusing top-level
// keys that differ only in case and a schema, package or name that is
// not a string.
func Encode(blob []byte) ([]byte, Keys, error) {
	var m map[string]any
	if err := json.Unmarshal(blob, &m); err != nil {
		return nil, Keys{}, fmt.Errorf("decode blob: %w", err)
	}
	if m == nil {
		return nil, Keys{}, fmt.Errorf("decode blob: not a JSON object")
	}
	k, err := keysOf(m)
	if err != nil {
		return nil, Keys{}, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, Keys{}, fmt.Errorf("encode blob: %w", err)
	}
	return buf.Bytes(), k, nil
}

// keysOf reads the schema, package and name of a decoded blob.
func keysOf(m map[string]any) (Keys, error) {
	var k Keys
	seen := make(map[string]string, len(m))
	for key, v := range m {
		lower := strings.ToLower(key)
		if other, dup := seen[lower]; dup {
			a, b := min(key, other), max(key, other)
			return Keys{}, fmt.Errorf("duplicate keys %q and %q", a, b)
		}
		seen[lower] = key
		var dst *string
		switch lower {
		case "schema":
			dst = &k.Schema
		case "package":
			dst = &k.Package
		case "name":
			dst = &k.Name
		default:
			continue
		}
		s, ok := v.(string)
		if !ok {
			return Keys{}, fmt.Errorf("key %q: must be a string, got %T", key, v)
		}
		*dst = s
	}
	return k, nil
}
