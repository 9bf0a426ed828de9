//go:build crashtest

package crashpoint

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
)

var (
	mu    sync.Mutex
	count int
	at    = atEnv()
)

func atEnv() int {
	n, _ := strconv.Atoi(os.Getenv("OLMCAT_CRASH_AT"))
	return n
}

// Hit counts the step, appends it to the file OLMCAT_CRASH_LOG names and,
// at the step OLMCAT_CRASH_AT numbers, kills the process with SIGKILL
// (no deferred function runs, as with kill -9 from outside).
func Hit(what string) {
	mu.Lock()
	defer mu.Unlock()
	count++
	if log := os.Getenv("OLMCAT_CRASH_LOG"); log != "" {
		if f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintf(f, "%d %s\n", count, what)
			f.Close()
		}
	}
	if count == at {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	}
}
