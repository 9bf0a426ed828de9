package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "f")
	write := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	require.NoError(t, Write(dest, false, write("one")))
	assert.ErrorContains(t, Write(dest, false, write("two")), "exists")
	require.NoError(t, Write(dest, true, write("three")))
	assert.ErrorContains(t, Write(dest, true, func(io.Writer) error { return errors.New("boom") }), "boom")
	data, err := os.ReadFile(dest)
	require.NoError(t, err)
	assert.Equal(t, "three", string(data), "a failed write leaves the old file")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file is left behind")
}

// TestWriteThroughSymlink: a symlink destination is written through (the
// file it points to is replaced, the link stays), and a fifo or a symlink
// to nothing is refused, never replaced.
func TestWriteThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	write := func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }
	require.NoError(t, os.WriteFile(filepath.Join(dir, "target"), []byte("old"), 0o644))
	require.NoError(t, os.Symlink("target", filepath.Join(dir, "link")))
	require.NoError(t, Write(filepath.Join(dir, "link"), true, write))
	fi, err := os.Lstat(filepath.Join(dir, "link"))
	require.NoError(t, err)
	assert.Equal(t, os.ModeSymlink, fi.Mode().Type())
	data, err := os.ReadFile(filepath.Join(dir, "target"))
	require.NoError(t, err)
	assert.Equal(t, "new", string(data))

	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	assert.ErrorIs(t, Write(filepath.Join(dir, "fifo"), true, write), ErrNotRegular)
	require.NoError(t, os.Symlink("nowhere", filepath.Join(dir, "dangling")))
	assert.ErrorContains(t, Write(filepath.Join(dir, "dangling"), true, write), "which does not exist")
	_, err = os.Lstat(filepath.Join(dir, "nowhere"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}
