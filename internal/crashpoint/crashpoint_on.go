//go:build crashtest

package crashpoint

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

var (
	mu    sync.Mutex
	count int
	at    = atEnv()
	on    = os.Getenv("OLMCAT_CRASH_ON")
)

func atEnv() int {
	n, _ := strconv.Atoi(os.Getenv("OLMCAT_CRASH_AT"))
	return n
}

// Hit counts the step, appends it to the file OLMCAT_CRASH_LOG names and,
// at the step OLMCAT_CRASH_AT numbers or the first one whose name starts
// with OLMCAT_CRASH_ON, kills the process with SIGKILL (no deferred
// function runs, as with kill -9 from outside).
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
	if count == at || (on != "" && strings.HasPrefix(what, on)) {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	}
}
