package legacy

import (
	"bytes"
	"io"
	"os"
)

// sqliteMagic is the 16-byte header every sqlite 3 database file starts with.
var sqliteMagic = []byte("SQLite format 3\x00")

// IsSQLiteFile reports whether path is a regular file that starts with the
// sqlite 3 header. Directories and missing files are not sqlite files.
func IsSQLiteFile(path string) (bool, error) {
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
	return HasSQLiteHeader(f), nil
}

// HasSQLiteHeader reports whether r starts with the sqlite 3 header. It
// reads at most the header's 16 bytes.
func HasSQLiteHeader(r io.Reader) bool {
	head := make([]byte, len(sqliteMagic))
	if _, err := io.ReadFull(r, head); err != nil {
		return false
	}
	return bytes.Equal(head, sqliteMagic)
}
