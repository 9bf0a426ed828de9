// Package quote owns how a name read from a catalog or a file system (a
// package, channel or bundle name, a file name) appears in text meant
// for a terminal: as is when it is plain printable text, quoted in Go
// syntax (%q, as opm prints names) when it holds control characters,
// newlines, escape sequences or invalid UTF-8. A hostile name can then
// neither colour the terminal nor forge a line of output. Every text
// formatter and every error message that prints such a name goes
// through Name; JSON and the CI formats escape on their own.
package quote

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Name returns s as text output prints it: s itself when every rune is
// printable (spaces other than ' ' and format characters such as bidi
// overrides are not) and it does not start with a double quote (which
// would make it look quoted), strconv.Quote(s) otherwise.
func Name(s string) string {
	if plain(s) {
		return s
	}
	return strconv.Quote(s)
}

// plain says whether Name prints s as is.
func plain(s string) bool {
	if len(s) > 0 && s[0] == '"' {
		return false
	}
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return false
			}
		}
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}
