// Package tempdir creates olmcat's temporary directories and sweeps the
// ones a killed run left behind. Every temporary directory olmcat makes
// (output work directories, image extraction, image builds) holds an
// owner marker that its process keeps locked (flock) while it works: the
// kernel drops the lock when the process dies, however it dies, so an
// unlocked marker means the directory was abandoned (a SIGKILL, a crash, a
// power loss, a SIGPIPE), and the next run that sweeps the same place
// removes it, or first finishes the write it held (see Claim).
package tempdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/operator-catalog/olmcat/internal/crashpoint"
)

// OwnerFile is the name of the owner marker inside a temporary directory.
const OwnerFile = ".olmcat-temp-owner"

// Dir is a temporary directory owned (marker locked) by this process, or
// claimed from a dead owner.
type Dir struct {
	// Path is the directory.
	Path   string
	marker *os.File
}

// Create creates parent/prefix<random>, marked and locked as this
// process's. The marker is written and locked under another name and
// renamed into place, so that a sweeper never sees an unlocked marker of
// a live directory.
func Create(parent, prefix string) (*Dir, error) {
	crashpoint.Hit("create temporary directory " + prefix)
	path, err := os.MkdirTemp(parent, prefix)
	if err != nil {
		return nil, fmt.Errorf("create temporary directory: %w", err)
	}
	marker, err := lockMarker(path)
	if err != nil {
		_ = os.RemoveAll(path)
		return nil, fmt.Errorf("mark temporary directory %s: %w", path, err)
	}
	return &Dir{Path: path, marker: marker}, nil
}

func lockMarker(dir string) (*os.File, error) {
	staging := filepath.Join(dir, OwnerFile+".new")
	f, err := os.OpenFile(staging, os.O_CREATE|os.O_RDWR|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		_, err = fmt.Fprintf(f, "pid %d\nstarted %s\n", os.Getpid(), processStart())
	}
	if err == nil {
		err = os.Rename(staging, filepath.Join(dir, OwnerFile))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Remove removes the directory and drops the lock. It is idempotent.
func (d *Dir) Remove() error {
	if d == nil || d.marker == nil {
		return nil
	}
	err := os.RemoveAll(d.Path)
	d.marker.Close()
	d.marker = nil
	if err != nil {
		return fmt.Errorf("remove temporary directory %s: %w", d.Path, err)
	}
	return nil
}

// Release drops the lock and keeps the directory, for the next run to
// claim (a commit that must be finished later).
func (d *Dir) Release() {
	if d != nil && d.marker != nil {
		d.marker.Close()
		d.marker = nil
	}
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

// Claim locks and returns the abandoned temporary directories
// parent/prefix*: those whose owner marker no live process holds. The
// caller owns them now (no other run claims them meanwhile) and finishes
// or removes each (Remove). Directories of runs still going and
// directories without a marker (not olmcat's) are left alone; a missing
// parent has none.
func Claim(parent, prefix string) ([]*Dir, error) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil, nil
		}
		return nil, fmt.Errorf("look for abandoned temporary directories in %s: %w", parent, err)
	}
	var claimed []*Dir
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		d, err := claim(filepath.Join(parent, e.Name()))
		if err != nil {
			for _, c := range claimed {
				c.Release()
			}
			return nil, err
		}
		if d != nil {
			claimed = append(claimed, d)
		}
	}
	return claimed, nil
}

// claim locks dir's owner marker if its owner is gone (nil if it is alive
// or dir has no marker).
func claim(dir string) (*Dir, error) {
	f, err := os.Open(filepath.Join(dir, OwnerFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("check temporary directory %s: %w", dir, err)
	}
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		f.Close()
		return nil, nil
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("check temporary directory %s: %w", dir, err)
	}
	return &Dir{Path: dir, marker: f}, nil
}

// Sweep removes the abandoned temporary directories parent/prefix* (see
// Claim) and returns their paths.
func Sweep(parent, prefix string) ([]string, error) {
	claimed, err := Claim(parent, prefix)
	if err != nil {
		return nil, err
	}
	var removed []string
	for i, d := range claimed {
		if err := d.Remove(); err != nil {
			for _, rest := range claimed[i+1:] {
				rest.Release()
			}
			return removed, err
		}
		removed = append(removed, d.Path)
	}
	return removed, nil
}
