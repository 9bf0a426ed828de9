package serve

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTerminationLog: the error is written over an existing log, never
// into a file that does not exist; a test is no container's main
// process.
func TestTerminationLog(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "termination-log")
	require.NoError(t, os.WriteFile(existing, []byte("an older, longer message\n"), 0o644))
	stop := errors.New("load catalog: boom")

	assert.Equal(t, stop, TerminationLog(existing).Write(stop))
	got, err := os.ReadFile(existing)
	require.NoError(t, err)
	assert.Equal(t, "load catalog: boom\n", string(got))

	require.NoError(t, TerminationLog(existing).Write(nil))
	got, err = os.ReadFile(existing)
	require.NoError(t, err)
	assert.Equal(t, "load catalog: boom\n", string(got), "no error: the log is left alone")

	missing := filepath.Join(dir, "missing")
	assert.Equal(t, stop, TerminationLog(missing).Write(stop))
	assert.NoFileExists(t, missing)
	assert.Equal(t, stop, TerminationLog("").Write(stop))

	assert.False(t, TerminationLog(existing).InContainer(), "not PID 1")
	assert.False(t, TerminationLog("").InContainer())
}
