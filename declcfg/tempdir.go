package declcfg

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// tempOwnerFile marks a temporary output directory as olmcat's. It holds
// the owner's pid and start time (for people reading it) and is locked
// (flock) by the owner for as long as it writes: the kernel drops the lock
// when the owner dies, however it dies, so an unlocked marker means the
// directory was abandoned (a SIGKILL, a crash, a power loss).
const tempOwnerFile = ".olmcat-temp-owner"

// tempInfix separates the output's base name from the random suffix in
// temporary directory names: ".<base>.tmp-<random>".
const tempInfix = ".tmp-"

// createTempDir creates the temporary directory for out in its parent,
// marked and locked as the caller's. The returned file holds the lock; it
// is closed by releaseTemp.
func createTempDir(parent, out string) (string, *os.File, error) {
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(out)+tempInfix)
	if err != nil {
		return "", nil, fmt.Errorf("create temporary directory for %s: %w", out, err)
	}
	marker, err := os.OpenFile(filepath.Join(tmp, tempOwnerFile), os.O_CREATE|os.O_RDWR|os.O_EXCL, 0o644)
	if err == nil {
		err = syscall.Flock(int(marker.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			_, err = fmt.Fprintf(marker, "pid %d\nstarted %s\n", os.Getpid(), processStart())
		}
		if err != nil {
			marker.Close()
		}
	}
	if err != nil {
		_ = os.RemoveAll(tmp)
		return "", nil, fmt.Errorf("mark temporary directory %s: %w", tmp, err)
	}
	return tmp, marker, nil
}

// processStart is this process's start time in clock ticks since boot
// (field 22 of /proc/self/stat), which with the pid identifies the process
// even after the pid is reused; "unknown" where /proc is not available.
func processStart() string {
	data, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return "unknown"
	}
	// The command name (field 2) may hold spaces; fields after it do not.
	s := string(data)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		f := strings.Fields(s[i+1:])
		if len(f) > 19 {
			return f[19] + " ticks after boot"
		}
	}
	return "unknown"
}

// removeAbandonedTemps removes the temporary directories for out that an
// earlier olmcat left behind: those with an owner marker nobody holds
// locked. Directories of runs still going (locked) and directories
// without a marker (not ours) are left alone. It returns the paths removed.
func removeAbandonedTemps(parent, out string) ([]string, error) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("look for abandoned temporary directories in %s: %w", parent, err)
	}
	prefix := "." + filepath.Base(out) + tempInfix
	var removed []string
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		abandoned, err := isAbandoned(dir)
		if err != nil {
			return removed, err
		}
		if !abandoned {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			return removed, fmt.Errorf("remove abandoned temporary directory %s: %w", dir, err)
		}
		removed = append(removed, dir)
	}
	return removed, nil
}

// isAbandoned says whether dir carries an owner marker that no live
// process holds locked.
func isAbandoned(dir string) (bool, error) {
	f, err := os.Open(filepath.Join(dir, tempOwnerFile))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("check temporary directory %s: %w", dir, err)
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("check temporary directory %s: %w", dir, err)
	}
	// Locked now by us: the owner is gone. The lock goes with f.
	return true, nil
}
