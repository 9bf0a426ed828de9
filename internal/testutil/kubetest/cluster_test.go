package kubetest

import (
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStartPinnedSurvivesThreadExit: a process started with Pdeathsig
// from a goroutine whose OS thread then exits (as the pod harness's
// namespace goroutines do) lives on when started through startPinned,
// and is killed when started on that thread itself, which is what killed
// the API server mid-run.
func TestStartPinnedSurvivesThreadExit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start func(*exec.Cmd) error
		alive bool
	}{
		{"pinned thread", startPinned, true},
		{"exiting thread", (*exec.Cmd).Start, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command("sleep", "30")
			cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
			errc := make(chan error, 1)
			release := make(chan struct{})
			defer close(release)
			var start func()
			start = func() {
				runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
				if syscall.Gettid() == syscall.Getpid() {
					// The main thread is never ended (the runtime parks it
					// when its locked goroutine exits), so the case would
					// not be shown: hold it and start from another thread.
					go start()
					<-release
					return
				}
				errc <- tc.start(cmd)
			}
			go start()
			require.NoError(t, <-errc)
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case err := <-exited:
				assert.False(t, tc.alive, "killed when the goroutine's thread exited: %v", err)
			case <-time.After(time.Second):
				assert.True(t, tc.alive, "still running after the thread that started it exited")
				_ = cmd.Process.Kill()
				<-exited
			}
		})
	}
}
