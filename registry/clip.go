package registry

import (
	"fmt"
	"unicode/utf8"
)

// maxEcho is how much of a request field an error or a log line repeats.
const maxEcho = 256

// maxError is how long an error returned to a client (and logged) may
// be: the backstop for an error that repeats request fields without
// Clip, or several of them.
const maxError = 4096

// Clip returns s, a request field that an error or a log line repeats,
// cut to a few hundred bytes (at a UTF-8 boundary) with its full length
// said: a 3 MB csvName must not come back whole in the status message,
// nor make a 3 MB log line per call. Short fields are returned as they
// are, so messages keep upstream's text.
func Clip(s string) string { return clipTo(s, maxEcho) }

func clipTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes in all)", s[:cut], len(s))
}
