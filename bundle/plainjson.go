package bundle

import (
	"unicode/utf8"
)

// plainJSONObject is canonicalObject of a manifest written as plain JSON
// (bundle images built by tools often are), decoded as JSON rather than
// parsed as YAML and converted: the same bytes, several times faster. ok
// is false, and canonicalObject parses data as YAML, unless data is a
// JSON object that YAML reads as the same document (isPlainJSON) and
// whose kind is a string.
func plainJSONObject(data []byte) (js []byte, ok bool) {
	if !isPlainJSON(data) {
		return nil, false
	}
	js, err := reencodeObject(data)
	return js, err == nil
}

// maxPlainDepth bounds the nesting isPlainJSON accepts, far within the
// 10,000 of both parsers.
const maxPlainDepth = 1000

// maxPlainKey bounds the bytes from a key's opening quote to its colon:
// YAML reads a key only when its colon is at most 1,024 characters after
// the key's start, on the same line.
const maxPlainKey = 1000

// isPlainJSON reports whether data, if it is a JSON object followed by
// nothing but whitespace, is one that the YAML parser reads as the same
// document: printable ASCII outside strings (no tab, which YAML refuses
// outside a flow collection), in strings also the UTF-8 characters YAML
// keeps as they are (yamlPlainRune), no escape YAML lacks (\/) or refuses (a surrogate \u),
// integers of at most 18 digits other than -0 (YAML reads 1.0 and 1e3
// as floats and writes them back as 1 and 1000, and -0 as 0), and each
// key on one line with its colon, close enough for YAML to see it as a
// key. It checks no JSON syntax beyond what it needs to tell keys,
// strings and numbers apart: the decoder does.
func isPlainJSON(data []byte) bool {
	var stack []byte // the open '{' and '['
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
			if len(stack) == maxPlainDepth || (len(stack) == 0 && c != '{') {
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
			if key < 0 || i-key > maxPlainKey {
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
			j, ok := plainInteger(data, i)
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
// when its characters (printable ASCII, yamlPlainRune) and its escapes
// mean the same in YAML's double-quoted strings.
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
			if !yamlPlainRune(r, n) {
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

// yamlPlainRune reports whether r, n bytes of UTF-8 in a JSON string,
// stands for itself in a YAML double-quoted string: valid UTF-8, not a
// character YAML refuses (C1 controls, U+FFFE, U+FFFF) or reads as a
// line break (U+0085, U+2028, U+2029, folded in a quoted string), not a
// byte order mark.
func yamlPlainRune(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n == 1:
		return false
	case r == 0x2028 || r == 0x2029 || r == 0xfeff:
		return false
	}
	return (r >= 0xa0 && r <= 0xfffd) || r >= 0x10000
}

// plainInteger returns the offset just past the number at data[i] when
// it is an integer YAML reads as the same int: no fraction or exponent,
// at most 18 digits, not -0.
func plainInteger(data []byte, i int) (int, bool) {
	start := i
	if data[i] == '-' {
		i++
	}
	digits := i
	for i < len(data) && data[i] >= '0' && data[i] <= '9' {
		i++
	}
	n := i - digits
	if n == 0 || n > 18 || string(data[start:i]) == "-0" {
		return 0, false
	}
	if i < len(data) && (data[i] == '.' || data[i] == 'e' || data[i] == 'E') {
		return 0, false
	}
	return i, true
}
