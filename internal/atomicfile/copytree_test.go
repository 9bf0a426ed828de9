package atomicfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCopyTree: directories and regular files are copied, symlinks
// skipped; an existing file is kept unless overwrite is set.
func TestCopyTree(t *testing.T) {
	from, to := t.TempDir(), t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(from, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(from, "sub", "a"), []byte("new"), 0o644))
	require.NoError(t, os.Symlink("sub/a", filepath.Join(from, "link")))
	require.NoError(t, os.MkdirAll(filepath.Join(to, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(to, "sub", "a"), []byte("old"), 0o644))
	read := func() string {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(to, "sub", "a"))
		require.NoError(t, err)
		return string(data)
	}
	require.NoError(t, CopyTree(from, to, false))
	assert.Equal(t, "old", read(), "kept without overwrite")
	require.NoError(t, CopyTree(from, to, true))
	assert.Equal(t, "new", read(), "replaced with overwrite")
	_, err := os.Lstat(filepath.Join(to, "link"))
	assert.ErrorIs(t, err, os.ErrNotExist, "symlinks are not copied")
}
