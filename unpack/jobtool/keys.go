package jobtool

import (
	"path"
	"strconv"
	"strings"
)

// maxKeyLength is the longest ConfigMap key the API server accepts.
const maxKeyLength = 253

// keyAssigner turns bundle file names into ConfigMap keys: every character
// outside [-._a-zA-Z0-9] becomes '-', and a name whose key is already taken
// gets a "-2", "-3", ... suffix before its extension, so two files never
// share a key (opm let the later one overwrite the earlier).
type keyAssigner struct {
	used map[string]bool
}

func newKeyAssigner() *keyAssigner { return &keyAssigner{used: map[string]bool{}} }

// assign returns the key for file name (a base name, not a path).
func (k *keyAssigner) assign(name string) string {
	base := SanitizeKey(name)
	key := base
	for n := 2; k.used[key]; n++ {
		ext := path.Ext(base)
		stem := strings.TrimSuffix(base, ext)
		suffix := "-" + strconv.Itoa(n) + ext
		if len(stem)+len(suffix) > maxKeyLength {
			stem = stem[:maxKeyLength-len(suffix)]
		}
		key = stem + suffix
	}
	k.used[key] = true
	return key
}

// SanitizeKey maps a file name to the ConfigMap key alphabet: characters
// outside [-._a-zA-Z0-9] become '-', the result is cut to 253 bytes, and
// the names "." and ".." (invalid keys) become "-" and "--".
func SanitizeKey(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !isKeyChar(c) {
			b[i] = '-'
		}
	}
	key := string(b)
	if len(key) > maxKeyLength {
		ext := path.Ext(key)
		if len(ext) > 16 {
			ext = ""
		}
		key = key[:maxKeyLength-len(ext)] + ext
	}
	switch key {
	case "":
		return "-"
	case ".", "..":
		return strings.Repeat("-", len(key))
	}
	return key
}

func isKeyChar(c byte) bool {
	return c == '-' || c == '_' || c == '.' ||
		('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}
