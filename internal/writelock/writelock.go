// Package writelock owns the write lock of an output: the one lock that
// every olmcat writer of a directory output (a catalog, an OCI layout, an
// unpacked image) holds from before it reads anything until its commit is
// done, so that two writers of one output run one after the other, the
// second on the first one's result, instead of the last commit silently
// dropping what the other wrote.
//
// The lock is an advisory flock(2) on a lock file, which the kernel
// drops when its process dies however it dies (a SIGKILL included): a
// lock file left behind is never in the way, the flock decides. The lock
// file is beside the output, .<name>.olmcat-lock in the output's parent;
// when the parent cannot be written (a read-only parent, or the root of a
// container volume) and the output is an existing directory, it is inside
// the output, as .olmcat-lock (see InsideName). Neither name is a catalog
// file (.json, .yaml, .yml), so catalog loaders never read them. The
// holder writes its pid into the file, so that a waiter can say whom it
// waits for, and removes the file when it releases the lock.
//
// Writers that differ in whether they may write the parent (two users)
// lock in different places and do not exclude each other; writers that
// may all write the parent, or none of them, do.
//
// The lock excludes processes. Within one process it is shared: taking
// it again while this process holds it succeeds at once (the CLI takes it
// before it reads its inputs, the output transaction takes it again).
package writelock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/operator-catalog/olmcat/internal/pathcheck"
)

// InsideName is the lock file's name when it lies inside the output
// directory; writers leave it out of the output's content.
const InsideName = ".olmcat-lock"

// Options says how to wait for a lock that another process holds.
type Options struct {
	// Wait is how long to wait for the lock; 0 fails at once and a
	// negative duration waits until the lock is free.
	Wait time.Duration
	// OnWait, when set, is called once before waiting, with the holder.
	OnWait func(Holder)
}

// Holder says who holds a lock.
type Holder struct {
	// LockFile is the lock file.
	LockFile string
	// PID is the holding process, 0 when it has not written it (yet).
	PID int
}

// String names the holder for a message.
func (h Holder) String() string {
	if h.PID == 0 {
		return "another process (lock file " + h.LockFile + ")"
	}
	return fmt.Sprintf("process %d (lock file %s)", h.PID, h.LockFile)
}

// BusyError is returned by Acquire when another process holds the lock
// and Options.Wait ran out.
type BusyError struct {
	// Output is the output whose lock is held.
	Output string
	// Holder is who holds it.
	Holder Holder
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("%s is being written by %s", e.Output, e.Holder)
}

// Lock is a held write lock (Acquire). Release it when the write is done.
type Lock struct {
	h        *held
	released bool
}

type held struct {
	path     string
	f        *os.File
	writable bool // the file is ours to write the pid into and remove
	refs     int
}

var (
	mu      sync.Mutex
	holding = map[string]*held{} // by lock file path
)

// Acquire takes the write lock of the output out (which need not exist;
// its parent is created, as the writer would), waiting for another
// process's as o says. It returns a *BusyError when the wait ran out and
// ctx's error when ctx ends first.
func Acquire(ctx context.Context, out string, o Options) (*Lock, error) {
	path, err := lockPath(out)
	if err != nil {
		return nil, err
	}
	mu.Lock()
	if h := holding[path]; h != nil {
		h.refs++
		mu.Unlock()
		return &Lock{h: h}, nil
	}
	mu.Unlock()
	h, err := wait(ctx, out, path, o)
	if err != nil {
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	holding[path] = h
	return &Lock{h: h}, nil
}

// Release lets this hold of the lock go; the lock itself goes with the
// last of this process's holds. It is idempotent.
func (l *Lock) Release() {
	if l == nil || l.released {
		return
	}
	l.released = true
	mu.Lock()
	defer mu.Unlock()
	h := l.h
	if h.refs--; h.refs > 0 {
		return
	}
	delete(holding, h.path)
	h.release()
}

// waitPoll is how often a waiting Acquire tries the lock again: short
// against a write's duration, long against a try (an open and a flock).
const waitPoll = 20 * time.Millisecond

// wait takes the lock on path. While another process holds it, the lock
// is tried again every waitPoll until it is free, the wait runs out or
// ctx ends. A try that cannot be taken back is never left running: a
// blocking flock in a goroutine, abandoned when the wait ran out, would
// take the lock later and create the lock file again beside whatever
// the caller does next.
func wait(ctx context.Context, out, path string, o Options) (*held, error) {
	h, err := lockFile(path)
	if err != nil || h != nil {
		return h, err
	}
	if o.Wait == 0 {
		return nil, &BusyError{Output: out, Holder: holderOf(path)}
	}
	if o.OnWait != nil {
		o.OnWait(holderOf(path))
	}
	var timeout <-chan time.Time
	if o.Wait > 0 {
		t := time.NewTimer(o.Wait)
		defer t.Stop()
		timeout = t.C
	}
	tick := time.NewTicker(waitPoll)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			if h, err := lockFile(path); err != nil || h != nil {
				return h, err
			}
		case <-timeout:
			return nil, &BusyError{Output: out, Holder: holderOf(path)}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// lockFile opens path and takes its flock, returning nil when another
// process holds it. The file it locked must still be the one at path (a
// holder removes it when it lets go); the holder's pid is written into
// it.
func lockFile(path string) (*held, error) {
	const how = syscall.LOCK_EX | syscall.LOCK_NB
	for {
		writable := true
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if isPermission(err) {
			// A lock file that we may not write (another user's) still
			// locks: flock needs no write access.
			if f2, err2 := os.Open(path); err2 == nil {
				writable, f, err = false, f2, nil
			}
		}
		if err != nil {
			return nil, fmt.Errorf("write lock %s: %w", path, err)
		}
		err = flock(f, how)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			_ = f.Close()
			return nil, nil
		}
		if err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("write lock %s: %w", path, err)
		}
		if !samePath(f, path) {
			_ = f.Close() // removed or replaced by the holder we waited for
			continue
		}
		if writable {
			// The pid is only for the waiters' message: a failure to
			// write it does not stop the write.
			if f.Truncate(0) == nil {
				_, _ = f.WriteAt([]byte("pid "+strconv.Itoa(os.Getpid())+"\n"), 0)
			}
		}
		return &held{path: path, f: f, writable: writable, refs: 1}, nil
	}
}

// flock is flock(2), retried when a signal interrupts it.
func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// release removes the lock file while still holding it, and only if it
// is still ours (a waiter that then gets the lock on the removed file
// sees that the path no longer leads to it, and opens the path again),
// then lets the lock go.
func (h *held) release() {
	if h.writable && samePath(h.f, h.path) {
		_ = os.Remove(h.path)
	}
	_ = h.f.Close()
}

// samePath says whether path still names the open file f.
func samePath(f *os.File, path string) bool {
	fst, err := f.Stat()
	if err != nil {
		return false
	}
	pst, err := os.Stat(path)
	return err == nil && os.SameFile(fst, pst)
}

// holderOf says who holds the lock file path. A holder writes its pid
// right after it took the lock: a file still empty is read again for a
// moment.
func holderOf(path string) Holder {
	for range 20 {
		if pid := holderPID(path); pid != 0 {
			return Holder{LockFile: path, PID: pid}
		}
		time.Sleep(time.Millisecond)
	}
	return Holder{LockFile: path}
}

// holderPID reads the pid the holder wrote into the lock file (0 when
// there is none yet).
func holderPID(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(string(data), "pid ")))
	if err != nil {
		return 0
	}
	return pid
}

// lockPath is where out's lock file is: beside out, or inside out when
// out is an existing directory and its parent cannot be written. The
// path is resolved through symlinks, so that every name of one output
// leads to the same lock.
func lockPath(out string) (string, error) {
	abs, err := pathcheck.Resolve(out)
	if err != nil {
		return "", fmt.Errorf("write lock of %s: %w", out, err)
	}
	parent := filepath.Dir(abs)
	beside := filepath.Join(parent, "."+filepath.Base(abs)+".olmcat-lock")
	if err := os.MkdirAll(parent, 0o755); err != nil && !isPermission(err) {
		return "", fmt.Errorf("write lock of %s: create parent: %w", out, err)
	}
	if _, err := os.Stat(beside); err == nil || writableDir(parent) {
		return beside, nil
	}
	if st, err := os.Stat(abs); err == nil && st.IsDir() {
		return filepath.Join(abs, InsideName), nil
	}
	return beside, nil // fails to open, naming the lock file
}

// writableDir says whether this process may create files in dir.
func writableDir(dir string) bool {
	return unix.Access(dir, unix.W_OK|unix.X_OK) == nil
}

func isPermission(err error) bool {
	return errors.Is(err, os.ErrPermission) || errors.Is(err, syscall.EROFS)
}

// Held says whether a process holds the write lock of the output out, and
// who, without taking the lock or creating anything: a reader (a server
// watching out) waits for a writer's commit to be done instead of reading
// its intermediate states. Either place of the lock file is checked.
func Held(out string) (Holder, bool) {
	abs, err := pathcheck.Resolve(out)
	if err != nil {
		return Holder{}, false
	}
	beside := filepath.Join(filepath.Dir(abs), "."+filepath.Base(abs)+".olmcat-lock")
	for _, path := range []string{beside, filepath.Join(abs, InsideName)} {
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		err = flock(f, syscall.LOCK_SH|syscall.LOCK_NB)
		_ = f.Close() // drops a shared lock taken
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return Holder{LockFile: path, PID: holderPID(path)}, true
		}
	}
	return Holder{}, false
}
