package writelock

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// holderEnv makes the test binary a process that takes the write lock of
// the output it names, says so on stdout and waits to be killed.
const holderEnv = "WRITELOCK_TEST_HOLD"

func TestMain(m *testing.M) {
	if out := os.Getenv(holderEnv); out != "" {
		if _, err := Acquire(context.Background(), out, Options{Wait: 0}); err != nil {
			os.Stdout.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("locked\n")
		select {}
	}
	os.Exit(m.Run())
}

// startHolder starts another process holding out's lock.
func startHolder(t *testing.T, out string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holderEnv+"="+out)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "locked\n", line)
	return cmd
}

// TestLockExcludesProcesses: while another process holds an output's
// lock, Acquire with no wait fails naming that process's pid, and a
// waiting Acquire is told the holder once and gets the lock as soon as
// the holder is killed with SIGKILL. Released, the lock file is gone.
func TestLockExcludesProcesses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		output func(t *testing.T) string
	}{
		{"new output", func(t *testing.T) string { return filepath.Join(t.TempDir(), "a", "catalog") }},
		{"existing output", func(t *testing.T) string {
			out := filepath.Join(t.TempDir(), "catalog")
			require.NoError(t, os.Mkdir(out, 0o755))
			return out
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := tc.output(t)
			holder := startHolder(t, out)
			lockFile := filepath.Join(filepath.Dir(out), ".catalog.olmcat-lock")

			_, err := Acquire(context.Background(), out, Options{Wait: 0})
			var busy *BusyError
			require.ErrorAs(t, err, &busy)
			assert.Equal(t, Holder{LockFile: lockFile, PID: holder.Process.Pid}, busy.Holder)
			assert.Equal(t, out+" is being written by process "+strconv.Itoa(holder.Process.Pid)+" (lock file "+lockFile+")", err.Error())

			start := time.Now()
			_, err = Acquire(context.Background(), out, Options{Wait: 100 * time.Millisecond})
			require.ErrorAs(t, err, &busy)
			assert.GreaterOrEqual(t, time.Since(start), 100*time.Millisecond)

			var told []Holder
			go func() {
				time.Sleep(200 * time.Millisecond)
				_ = holder.Process.Signal(syscall.SIGKILL)
			}()
			l, err := Acquire(context.Background(), out, Options{Wait: -1, OnWait: func(h Holder) { told = append(told, h) }})
			require.NoError(t, err)
			assert.Equal(t, []Holder{{LockFile: lockFile, PID: holder.Process.Pid}}, told)
			data, err := os.ReadFile(lockFile)
			require.NoError(t, err)
			assert.Equal(t, "pid "+strconv.Itoa(os.Getpid())+"\n", string(data))
			l.Release()
			assert.NoFileExists(t, lockFile)
		})
	}
}

// TestLockSharedWithinProcess: this process takes the lock again while
// it holds it (the CLI, then the output transaction), through any name
// of the output, and keeps it until the last release.
func TestLockSharedWithinProcess(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "catalog")
	require.NoError(t, os.Mkdir(out, 0o755))
	require.NoError(t, os.Symlink(out, filepath.Join(dir, "link")))
	outer, err := Acquire(context.Background(), out, Options{Wait: 0})
	require.NoError(t, err)
	inner, err := Acquire(context.Background(), filepath.Join(dir, "link"), Options{Wait: 0})
	require.NoError(t, err)
	inner.Release()
	inner.Release() // idempotent
	assert.FileExists(t, filepath.Join(dir, ".catalog.olmcat-lock"), "still held by the outer one")
	outer.Release()
	assert.NoFileExists(t, filepath.Join(dir, ".catalog.olmcat-lock"))
}

// TestLockWaitEndsWithContext: a wait ends when its context does.
func TestLockWaitEndsWithContext(t *testing.T) {
	out := filepath.Join(t.TempDir(), "catalog")
	startHolder(t, out)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := Acquire(ctx, out, Options{Wait: -1})
	assert.True(t, errors.Is(err, context.DeadlineExceeded), err)
}

// TestHeld: Held sees a lock another process holds, names its pid, and
// creates nothing; a lock file left without a holder is not held.
func TestHeld(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "catalog")
	require.NoError(t, os.Mkdir(out, 0o755))
	_, held := Held(out)
	assert.False(t, held)
	assert.NoFileExists(t, filepath.Join(dir, ".catalog.olmcat-lock"), "Held creates nothing")

	holder := startHolder(t, out)
	h, held := Held(out)
	require.True(t, held)
	assert.Equal(t, holder.Process.Pid, h.PID)

	require.NoError(t, os.WriteFile(filepath.Join(dir, ".other.olmcat-lock"), []byte("pid 1\n"), 0o644))
	_, held = Held(filepath.Join(dir, "other"))
	assert.False(t, held, "a lock file nobody holds")
}
