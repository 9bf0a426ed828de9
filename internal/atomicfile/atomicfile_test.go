package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
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
