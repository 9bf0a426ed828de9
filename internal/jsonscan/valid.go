package jsonscan

import "encoding/binary"

// Valid reports whether b is one valid JSON value, with exactly the
// verdict of encoding/json.Valid (same grammar, same nesting limit; like
// it, string bodies are not checked for UTF-8). Long strings, most of a
// manifest's bytes, are crossed with a tight table-driven loop instead of
// a byte-at-a-time state machine.
func Valid(b []byte) bool {
	i, ok := validValue(b, SkipSpace(b, 0), 0)
	return ok && SkipSpace(b, i) == len(b)
}

// maxNesting is encoding/json's limit on nested arrays and objects.
const maxNesting = 10000

func validValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '{':
		if depth++; depth > maxNesting {
			return 0, false
		}
		i = SkipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1, true
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return 0, false
			}
			var ok bool
			if i, ok = validString(b, i); !ok {
				return 0, false
			}
			i = SkipSpace(b, i)
			if i >= len(b) || b[i] != ':' {
				return 0, false
			}
			if i, ok = validValue(b, SkipSpace(b, i+1), depth); !ok {
				return 0, false
			}
			i = SkipSpace(b, i)
			if i >= len(b) {
				return 0, false
			}
			switch b[i] {
			case ',':
				i = SkipSpace(b, i+1)
			case '}':
				return i + 1, true
			default:
				return 0, false
			}
		}
	case '[':
		if depth++; depth > maxNesting {
			return 0, false
		}
		i = SkipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = validValue(b, i, depth); !ok {
				return 0, false
			}
			i = SkipSpace(b, i)
			if i >= len(b) {
				return 0, false
			}
			switch b[i] {
			case ',':
				i = SkipSpace(b, i+1)
			case ']':
				return i + 1, true
			default:
				return 0, false
			}
		}
	case '"':
		return validString(b, i)
	case 't':
		return validLiteral(b, i, "true")
	case 'f':
		return validLiteral(b, i, "false")
	case 'n':
		return validLiteral(b, i, "null")
	default:
		return validNumber(b, i)
	}
}

func validLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}

// plainStringByte marks bytes that may appear unescaped in a JSON string
// and need no further look: everything but control characters, '"' and '\'.
var plainStringByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func validString(b []byte, i int) (int, bool) {
	i++
	for {
		i = skipPlain(b, i)
		if i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case '"':
			return i + 1, true
		case '\\':
			if i+1 >= len(b) {
				return 0, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 {
					return 0, false
				}
				for _, c := range b[i+2 : i+6] {
					if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
						return 0, false
					}
				}
				i += 6
			default:
				return 0, false
			}
		default: // a control character
			return 0, false
		}
	}
}

// skipPlain returns the index of the first byte at or after i that is
// not a plainStringByte (len(b) if none), looking at eight bytes at a time
// while none of them is special.
func skipPlain(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if hasSpecialByte(binary.LittleEndian.Uint64(b[i:])) {
			break
		}
	}
	for i < len(b) && plainStringByte[b[i]] {
		i++
	}
	return i
}

// Byte-lane constants for hasSpecialByte.
const (
	lanes1  = 0x0101010101010101
	lanes80 = 0x8080808080808080
)

// hasSpecialByte reports whether any of the eight bytes of x is a
// control character (below 0x20), '"' or '\\': the classic exact
// "has a zero byte" and "has a byte less than n" word tests.
func hasSpecialByte(x uint64) bool {
	control := (x - 0x20*lanes1) &^ x & lanes80
	q := x ^ ('"' * lanes1)
	quote := (q - lanes1) &^ q & lanes80
	s := x ^ ('\\' * lanes1)
	backslash := (s - lanes1) &^ s & lanes80
	return control|quote|backslash != 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func validNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return 0, false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return 0, false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	return i, true
}
