package jsonscan

import (
	"bytes"
	"encoding/json"
)

// ValidFields is Valid and ObjectFields in one pass over an object: it
// reports whether b is one valid JSON value, as Valid does, and calls fn
// with each top-level key (unescaped as ObjectFields does) and raw value
// in order, each value once it is found valid. Callers that need both
// (is this manifest JSON, and what is its kind) read b once instead of
// twice. b that is not an object is ErrSyntax, with no call. A non-nil
// error from fn ends the walk and is returned; valid is then false and
// says nothing.
func ValidFields(b []byte, fn func(key, value []byte) error) (valid bool, err error) {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false, ErrSyntax
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return SkipSpace(b, i+1) == len(b), nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false, nil
		}
		end, ok := validString(b, i)
		if !ok {
			return false, nil
		}
		key, ok := fieldKey(b, i, end)
		if !ok {
			return false, nil
		}
		i = SkipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return false, nil
		}
		vs := SkipSpace(b, i+1)
		ve, ok := validValue(b, vs, 1) // inside the top-level object
		if !ok {
			return false, nil
		}
		if err := fn(key, b[vs:ve]); err != nil {
			return false, err
		}
		i = SkipSpace(b, ve)
		if i >= len(b) {
			return false, nil
		}
		switch b[i] {
		case ',':
			i = SkipSpace(b, i+1)
		case '}':
			return SkipSpace(b, i+1) == len(b), nil
		default:
			return false, nil
		}
	}
}

// fieldKey is the key the string b[i:end] spells: a sub-slice of b, or,
// when it holds escapes, its decoded bytes (ok false when it does not
// decode).
func fieldKey(b []byte, i, end int) (key []byte, ok bool) {
	key = b[i+1 : end-1]
	if bytes.IndexByte(key, '\\') < 0 {
		return key, true
	}
	var k string
	if json.Unmarshal(b[i:end], &k) != nil {
		return nil, false
	}
	return []byte(k), true
}
