// Package yamljson answers one question for the fast paths that stand in
// for the YAML parser: does the YAML parser that sigs.k8s.io/yaml uses
// (go.yaml.in/yaml/v2) read this JSON text as the same document
// encoding/json does? When it does, a caller may decode the text with
// encoding/json, several times faster, and get what the YAML path gives.
//
// It owns the byte-level rules, written once: the characters YAML keeps
// as they are, the escapes YAML lacks or refuses, each key on one line
// with its colon close enough for YAML to see a key, the nesting depth.
// Numbers are the caller's choice (Numbers): bundle re-encodes YAML's
// reading as JSON and so takes integers only, declcfg types each number
// as YAML's resolver does itself. It checks no JSON syntax beyond what it
// needs to tell keys, strings and numbers apart: the caller's decoder does.
package yamljson

import "unicode/utf8"

// Numbers is the number rule of ReadsAsJSON.
type Numbers uint8

const (
	// AnyNumbers accepts every JSON number: YAML reads it as a plain
	// scalar of the same text, which the caller types as YAML's resolver
	// does (int, uint64, float64).
	AnyNumbers Numbers = iota
	// Integers accepts only the integers that YAML reads as the same int
	// and that YAML→JSON writes back unchanged: no fraction or exponent
	// (1.0 and 1e3 come back as 1 and 1000), at most 18 digits, not -0
	// (it comes back as 0).
	Integers
)

// MaxDepth bounds the nesting ReadsAsJSON accepts, far within the 10,000
// of both parsers.
const MaxDepth = 1000

// MaxKey bounds the bytes from a key's opening quote to its colon: YAML
// reads a key only when its colon is at most 1,024 characters after the
// key's start, on the same line; a character is at least one byte.
const MaxKey = 1000

// ReadsAsJSON reports whether data, if it is a JSON object followed by
// nothing but whitespace, is one that the YAML parser reads as the same
// document: printable ASCII outside strings (no tab, which YAML refuses
// outside a flow collection), in strings also the UTF-8 characters YAML
// keeps as they are (plainRune), no escape YAML lacks (\/) or refuses (a
// surrogate \u), numbers as nums says, each key on one line with its
// colon at most MaxKey bytes on (else YAML sees no key: "did not find
// expected ','"), nesting at most MaxDepth.
func ReadsAsJSON(data []byte, nums Numbers) bool {
	var buf [64]byte
	stack := buf[:0] // the open '{' and '['
	key := -1        // offset of the key whose colon is next
	expectKey, done := false, false
	for i := 0; i < len(data); {
		c := data[i]
		if c == ' ' || c == '\n' || c == '\r' {
			if c != ' ' && key >= 0 {
				return false
			}
			i++
			continue
		}
		if done {
			return false
		}
		switch {
		case c == '{' || c == '[':
			if len(stack) == MaxDepth || (len(stack) == 0 && c != '{') {
				return false
			}
			stack = append(stack, c)
			expectKey = c == '{'
			i++
		case c == '}' || c == ']':
			if len(stack) == 0 {
				return false
			}
			stack = stack[:len(stack)-1]
			done = len(stack) == 0
			i++
		case c == ',':
			expectKey = len(stack) > 0 && stack[len(stack)-1] == '{'
			i++
		case c == ':':
			if key < 0 || i-key > MaxKey {
				return false
			}
			key = -1
			i++
		case c == '"':
			if expectKey {
				key, expectKey = i, false
			}
			j, ok := plainString(data, i)
			if !ok {
				return false
			}
			i = j
		case c == '-' || (c >= '0' && c <= '9'):
			j, ok := number(data, i, nums)
			if !ok {
				return false
			}
			i = j
		case c >= 'a' && c <= 'z': // true, false, null
			for i < len(data) && data[i] >= 'a' && data[i] <= 'z' {
				i++
			}
		default:
			return false
		}
		if len(stack) == 0 && !done {
			return false // not an object
		}
	}
	return done
}

// plainString returns the offset just past the JSON string at data[i]
// when its characters (printable ASCII, plainRune) and its escapes mean
// the same in YAML's double-quoted strings.
func plainString(data []byte, i int) (int, bool) {
	for i++; i < len(data); i++ {
		c := data[i]
		switch {
		case c == '"':
			return i + 1, true
		case c < 0x20 || c == 0x7f:
			return 0, false
		case c >= 0x80:
			r, n := utf8.DecodeRune(data[i:])
			if !plainRune(r, n) {
				return 0, false
			}
			i += n - 1
			continue
		case c != '\\':
			continue
		}
		if i+1 >= len(data) {
			return 0, false
		}
		i++
		switch data[i] {
		case '"', '\\', 'b', 'f', 'n', 'r', 't':
		case 'u':
			if i+4 >= len(data) {
				return 0, false
			}
			if h := data[i+1] | 0x20; h == 'd' && data[i+2] >= '8' { // D800-DFFF, and junk the decoder refuses
				return 0, false
			}
			i += 4
		default:
			return 0, false
		}
	}
	return 0, false
}

// plainRune reports whether r, n bytes of UTF-8 in a JSON string, stands
// for itself in a YAML double-quoted string: valid UTF-8, not a character
// YAML refuses (C1 controls, U+FFFE, U+FFFF) or reads as a line break
// (U+0085, U+2028, U+2029, folded in a quoted string), not a byte order
// mark.
func plainRune(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n == 1:
		return false
	case r == 0x2028 || r == 0x2029 || r == 0xfeff:
		return false
	}
	return (r >= 0xa0 && r <= 0xfffd) || r >= 0x10000
}

// number returns the offset just past the number at data[i] when nums
// accepts it. Integers: no fraction or exponent, at most 18 digits, not
// -0. AnyNumbers: the characters of a JSON number, which YAML reads as
// one plain scalar (a flow plain scalar ends at ',', ']', '}', ':' or
// white space).
func number(data []byte, i int, nums Numbers) (int, bool) {
	start := i
	if data[i] == '-' {
		i++
	}
	digits := i
	for i < len(data) && data[i] >= '0' && data[i] <= '9' {
		i++
	}
	n := i - digits
	if nums == AnyNumbers {
		for i < len(data) && (data[i] >= '0' && data[i] <= '9' || data[i] == '.' || data[i] == 'e' || data[i] == 'E' || data[i] == '+' || data[i] == '-') {
			i++
		}
		return i, n > 0
	}
	if n == 0 || n > 18 || string(data[start:i]) == "-0" {
		return 0, false
	}
	if i < len(data) && (data[i] == '.' || data[i] == 'e' || data[i] == 'E') {
		return 0, false
	}
	return i, true
}
