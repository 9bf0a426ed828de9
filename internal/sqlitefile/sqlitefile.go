// Package sqlitefile tells a sqlite 3 database file by its header, without
// a sqlite library: the catalog detection of builds that leave the sqlite
// backend out (the slim image build) and the legacy reader share it.
package sqlitefile

import (
	"bytes"
	"io"
	"os"
)

// magic is the 16-byte header every sqlite 3 database file starts with.
var magic = []byte("SQLite format 3\x00")

// HasHeader reports whether r starts with the sqlite 3 header. It reads
// at most the header's 16 bytes.
func HasHeader(r io.Reader) bool {
	head := make([]byte, len(magic))
	if _, err := io.ReadFull(r, head); err != nil {
		return false
	}
	return bytes.Equal(head, magic)
}

// Is reports whether path is a regular file that starts with the sqlite 3
// header. Directories and other non-regular files are not sqlite files
// (and are not opened: opening a named pipe would block); a missing path
// is an error naming it.
func Is(path string) (bool, error) {
	st, err := os.Stat(path)
	if err != nil {
		return false, err // names path already
	}
	if !st.Mode().IsRegular() {
		return false, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return false, err // names path already
	}
	defer f.Close()
	return HasHeader(f), nil
}
