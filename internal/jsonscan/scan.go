package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// ErrSyntax is returned by the walkers for input they cannot walk.
var ErrSyntax = errors.New("malformed JSON")

// errStop ends a walk early without an error (Field, Objects).
var errStop = errors.New("stop")

// SkipSpace returns the index of the first non-space byte at or after i.
func SkipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// TrimSpace returns b without the JSON whitespace (space, tab, newline,
// carriage return) around it; unlike bytes.TrimSpace it leaves other
// Unicode space alone, so Valid(b) == Valid(TrimSpace(b)).
func TrimSpace(b []byte) []byte {
	b = b[SkipSpace(b, 0):]
	for len(b) > 0 {
		switch b[len(b)-1] {
		case ' ', '\t', '\n', '\r':
			b = b[:len(b)-1]
		default:
			return b
		}
	}
	return b
}

// SkipString returns the index just past the string starting at b[i]
// ('"'). It jumps from quote to quote (bytes.IndexByte is vectorised) and
// takes a quote as the end when an even number of backslashes precedes it.
func SkipString(b []byte, i int) (int, error) {
	start := i
	i++
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return 0, ErrSyntax
		}
		i += j
		n := 0
		for k := i - 1; k > start && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return i + 1, nil
		}
		i++
	}
}

// structural marks the bytes SkipValue has to look at inside containers.
var structural = [256]bool{'"': true, '{': true, '}': true, '[': true, ']': true}

// errShort: the input ends inside the value being scanned.
var errShort = errors.New("unexpected end of JSON input")

// scanNested scans an object or array from b[i] with depth brackets
// already open (0 when b[i] opens it). It returns the index just past the
// bracket that closes it, or, when b ends first, errShort with where to
// resume once more input is appended (the opening quote of a string b
// cuts short, else len(b)) and the depth there. Brackets are matched by
// depth only; strings are jumped over.
func scanNested(b []byte, i, depth int) (next, openDepth int, err error) {
	for i < len(b) {
		if !structural[b[i]] {
			i++
			continue
		}
		switch b[i] {
		case '"':
			end, err := SkipString(b, i)
			if err != nil {
				return i, depth, errShort
			}
			i = end
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, 0, nil
			}
			if depth < 0 {
				return 0, 0, ErrSyntax
			}
		}
		i++
	}
	return i, depth, errShort
}

// SkipValue returns the index just past the value starting at the first
// non-space byte at or after i. Objects and arrays are skipped by bracket
// depth; a scalar ends at the next delimiter.
func SkipValue(b []byte, i int) (int, error) {
	i = SkipSpace(b, i)
	if i >= len(b) {
		return 0, ErrSyntax
	}
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		end, _, err := scanNested(b, i, 0)
		if err == errShort {
			return 0, ErrSyntax
		}
		return end, err
	case '}', ']', ',', ':':
		return 0, ErrSyntax
	default:
		start := i
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i, nil
			}
			i++
		}
		if i == start {
			return 0, ErrSyntax
		}
		return i, nil
	}
}

// ObjectFields calls fn with each key and raw value of the JSON object b,
// in order. Keys are unescaped (a key with escapes is decoded and so
// allocated; others are sub-slices of b). A non-nil error from fn ends the
// walk and is returned. b that is not an object is ErrSyntax.
func ObjectFields(b []byte, fn func(key, value []byte) error) error {
	_, err := ObjectFieldsAt(b, 0, fn)
	return err
}

// ObjectFieldsAt is ObjectFields for the object that starts at b[i]
// (after JSON whitespace), which may be followed by more input; it also
// returns the index just past the object's closing brace, where SkipValue
// would end, so a stream of objects is walked once.
func ObjectFieldsAt(b []byte, i int, fn func(key, value []byte) error) (int, error) {
	i = SkipSpace(b, i)
	if i >= len(b) || b[i] != '{' {
		return 0, ErrSyntax
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for i < len(b) {
		if b[i] != '"' {
			return 0, ErrSyntax
		}
		end, err := SkipString(b, i)
		if err != nil {
			return 0, err
		}
		key, ok := fieldKey(b, i, end)
		if !ok {
			return 0, ErrSyntax
		}
		i = SkipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return 0, ErrSyntax
		}
		vs := SkipSpace(b, i+1)
		ve, err := SkipValue(b, vs)
		if err != nil {
			return 0, err
		}
		if err := fn(key, b[vs:ve]); err != nil {
			return 0, err
		}
		i = SkipSpace(b, ve)
		if i < len(b) && b[i] == ',' {
			i = SkipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return i + 1, nil
		}
		return 0, ErrSyntax
	}
	return 0, ErrSyntax
}

// ArrayElems calls fn with each raw element of the JSON array b. null,
// absent (empty b) and any other non-array value have no elements, as
// decoding them into a nil slice leaves it empty. A non-nil error from fn
// ends the walk and is returned.
func ArrayElems(b []byte, fn func(elem []byte) error) error {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return nil
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return nil
	}
	for i < len(b) {
		e, err := SkipValue(b, i)
		if err != nil {
			return err
		}
		if err := fn(b[i:e]); err != nil {
			return err
		}
		i = SkipSpace(b, e)
		if i < len(b) && b[i] == ',' {
			i = SkipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == ']' {
			return nil
		}
		return ErrSyntax
	}
	return ErrSyntax
}

// Field returns the raw value of the first key that equals key exactly in
// the JSON object b; nil when b is not an object or has no such key.
func Field(b []byte, key string) []byte {
	var out []byte
	_ = ObjectFields(b, func(k, v []byte) error {
		if string(k) == key {
			out = v
			return errStop
		}
		return nil
	})
	return out
}

// PlainString returns the body of the raw JSON string v when it is the
// decoded value as is: no escape, no control character, valid UTF-8
// (encoding/json replaces invalid bytes). ok is false otherwise: v is no
// string, or decoding it needs encoding/json.
func PlainString(v []byte) (s []byte, ok bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return nil, false
	}
	body := v[1 : len(v)-1]
	ascii := true
	for _, c := range body {
		if c < 0x20 || c == '"' || c == '\\' {
			return nil, false
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	if !ascii && !utf8.Valid(body) {
		return nil, false
	}
	return body, true
}

// String decodes the raw JSON value v as a string: the plain fast path,
// else encoding/json. ok is false when v is not a JSON string (null
// included).
func String(v []byte) (string, bool) {
	if body, ok := PlainString(v); ok {
		return string(body), true
	}
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// Objects splits data, a sequence of top-level JSON objects and arrays
// separated by optional white space, into one sub-slice per value (no
// copies; each capped at its own length). ok is false when data is not a
// clean sequence of them: a scalar at top level, unbalanced nesting, an
// unterminated string. Values are not checked for grammar (see Valid).
func Objects(data []byte) (out [][]byte, ok bool) {
	spans, ok := Spans(data)
	if !ok {
		return nil, false
	}
	for _, sp := range spans {
		out = append(out, data[sp.Off:sp.End:sp.End])
	}
	return out, true
}

// Span is the byte range [Off, End) of one top-level value.
type Span struct{ Off, End int }

// Spans is Objects as byte ranges, for callers that keep offsets into a
// file instead of the bytes.
func Spans(data []byte) (out []Span, ok bool) {
	i, n := 0, len(data)
	for {
		i = SkipSpace(data, i)
		if i == n {
			return out, true
		}
		if data[i] != '{' && data[i] != '[' {
			return nil, false
		}
		end, err := SkipValue(data, i)
		if err != nil {
			return nil, false
		}
		out = append(out, Span{Off: i, End: end})
		i = end
	}
}
