package sqlitefile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHasHeader(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want bool
	}{
		{"sqlite header", "SQLite format 3\x00rest of the page", true},
		{"header only", "SQLite format 3\x00", true},
		{"short", "SQLite format 3", false},
		{"no NUL", "SQLite format 3 and more", false},
		{"yaml", "schema: olm.package\n", false},
		{"empty", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, HasHeader(strings.NewReader(tc.in)))
		})
	}
}

func TestIs(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "index.db")
	require.NoError(t, os.WriteFile(db, []byte("SQLite format 3\x00\x10\x00"), 0o600))
	text := filepath.Join(dir, "catalog.json")
	require.NoError(t, os.WriteFile(text, []byte(`{"schema":"olm.package"}`), 0o600))

	ok, err := Is(db)
	require.NoError(t, err)
	assert.True(t, ok, "a file with the header")
	ok, err = Is(text)
	require.NoError(t, err)
	assert.False(t, ok, "a JSON file")
	ok, err = Is(dir)
	require.NoError(t, err)
	assert.False(t, ok, "a directory")
	_, err = Is(filepath.Join(dir, "missing.db"))
	require.ErrorIs(t, err, os.ErrNotExist)
	assert.Contains(t, err.Error(), "missing.db")
}
