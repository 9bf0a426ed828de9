package main

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// startHTTPBinary starts the real binary bin serving catalog over
// catalogd's HTTP API only, with the environment env, and waits until
// /all answers 200. The test's end kills it if it still runs.
func startHTTPBinary(t *testing.T, bin string, env []string, catalog string) (*exec.Cmd, *lockedBuffer) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--http", "127.0.0.1:0", "-p", "-1", catalog)
	stderr := &lockedBuffer{}
	cmd.Env, cmd.Stderr = env, stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	var url string
	require.Eventually(t, func() bool {
		m := httpReady.FindStringSubmatch(stderr.String())
		if m != nil {
			url = m[1]
		}
		return m != nil
	}, 60*time.Second, 10*time.Millisecond, "no 'catalogd HTTP API ready' log line: %s", stderr.String())
	resp, err := http.Get(url)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	return cmd, stderr
}

// TestServeHTTPKilledFilesSwept: `olmcat serve --http` killed with
// SIGKILL once it serves cannot remove the temporary directory of its
// served files (the encoded catalog); the next `serve --http` with the
// same temporary directory removes it and logs that it did, and a server
// stopped by SIGTERM removes its own.
func TestServeHTTPKilledFilesSwept(t *testing.T) {
	bin := buildBinary(t)
	tmp := t.TempDir()
	env := append(os.Environ(), "TMPDIR="+tmp)
	left := func() []string {
		l, err := filepath.Glob(filepath.Join(tmp, "olmcat-catalogd-*"))
		require.NoError(t, err)
		return l
	}
	catalog := filepath.Join(legacyFixtures, "small-fbb", "opm-migrate")

	killed, _ := startHTTPBinary(t, bin, env, catalog)
	abandoned := left()
	require.Len(t, abandoned, 1, "one directory of served files")
	require.NoError(t, killed.Process.Signal(syscall.SIGKILL))
	_ = killed.Wait()
	require.DirExists(t, abandoned[0], "SIGKILL leaves the served files")

	next, stderr := startHTTPBinary(t, bin, env, catalog)
	require.NoDirExists(t, abandoned[0], "the next run sweeps the killed run's files")
	require.Len(t, left(), 1, "only the running server's directory")
	require.Contains(t, stderr.String(), "removed the served files a killed run left")
	require.Contains(t, stderr.String(), abandoned[0])

	require.NoError(t, next.Process.Signal(syscall.SIGTERM))
	require.NoError(t, next.Wait())
	require.Empty(t, left(), "a server stopped by SIGTERM removes its served files")
}
