// Package tempdir creates olmcat's temporary directories and sweeps the
// ones a killed run left behind. Every temporary directory olmcat makes
// (output work directories, image extraction, image builds, layer
// downloads) is olmcat's by its name from the moment it exists: it is
// created as prefix<random>.olmcat, and its process keeps the directory
// itself locked (flock) while it works. The kernel drops the lock when
// the process dies, however it dies, so a marked directory that is not
// locked was abandoned (a SIGKILL, a crash, a power loss, a SIGPIPE), and
// the next run that sweeps the same place removes it, or first finishes
// the write it held (see Claim).
//
// Removal is marked too: a directory is first renamed to
// prefix<random>.olmcat-trash, then its content removed, so a kill in the
// middle of a removal leaves a trash directory that every sweep removes
// by its name alone, never a half-removed directory that looks like
// anything else.
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

// Name marks of olmcat's temporary directories (after the caller's
// prefix and a random part): a directory in use, and one being removed.
const (
	liveMark  = ".olmcat"
	trashMark = ".olmcat-trash"
)

// OwnerFile is the owner marker of temporary directories that olmcat
// releases before names carried the mark made: a locked file inside the
// directory. Such a directory whose marker nobody locks is swept too.
const OwnerFile = ".olmcat-temp-owner"

// createAttempts bounds the retries of Create when a sweeper took the new
// directory in the instant between its creation and its lock.
const createAttempts = 100

// Dir is a temporary directory owned (locked) by this process, or
// claimed from a dead owner.
type Dir struct {
	// Path is the directory.
	Path   string
	lock   *os.File // the directory itself, flock'ed
	marker *os.File // the owner marker of an older release's directory
}

// Create creates parent/prefix<random>.olmcat, locked as this process's.
// The name is the mark, so a kill at any instant leaves nothing a sweep
// of parent/prefix* does not recognise.
func Create(parent, prefix string) (*Dir, error) {
	crashpoint.Hit("create temporary directory " + prefix)
	for range createAttempts {
		path, err := os.MkdirTemp(parent, prefix+"*"+liveMark)
		if err != nil {
			return nil, fmt.Errorf("create temporary directory: %w", err)
		}
		crashpoint.Hit("lock temporary directory " + prefix)
		lock, err := lockDir(path)
		if errors.Is(err, errTaken) {
			continue // a sweep took it before the lock: it is the sweep's now
		}
		if err != nil {
			_ = os.Remove(path)
			return nil, fmt.Errorf("lock temporary directory %s: %w", path, err)
		}
		return &Dir{Path: path, lock: lock}, nil
	}
	return nil, fmt.Errorf("create temporary directory in %s: taken by concurrent sweeps %d times", parent, createAttempts)
}

// errTaken: the directory is locked by another process, or is no longer
// at its path.
var errTaken = errors.New("taken by another process")

// lockDir opens and locks the directory dir, errTaken when another
// process holds it or it was moved or removed meanwhile.
func lockDir(dir string) (*os.File, error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, errTaken
	}
	if err != nil {
		return nil, err
	}
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		f.Close()
		return nil, errTaken
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	// Locked: but the directory may have been renamed (to trash) by the
	// process that held it before.
	held, err1 := f.Stat()
	now, err2 := os.Lstat(dir)
	if err1 != nil || err2 != nil || !os.SameFile(held, now) {
		f.Close()
		return nil, errTaken
	}
	return f, nil
}

// Remove removes the directory and drops the lock. It is idempotent. The
// directory is renamed to its trash name first, so that a kill during the
// removal leaves a directory every sweep removes.
func (d *Dir) Remove() error {
	if d == nil || d.lock == nil {
		return nil
	}
	defer d.Release()
	crashpoint.Hit("remove temporary directory " + filepath.Base(d.Path))
	trash := strings.TrimSuffix(d.Path, liveMark) + trashMark
	if err := os.Rename(d.Path, trash); err != nil {
		return fmt.Errorf("remove temporary directory %s: %w", d.Path, err)
	}
	if err := removeTrash(trash); err != nil {
		return fmt.Errorf("remove temporary directory %s: %w", d.Path, err)
	}
	return nil
}

// removeTrash removes a trash directory, one top-level entry at a time
// (a crash step between two: a kill may land in the middle).
func removeTrash(trash string) error {
	ents, err := os.ReadDir(trash)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, e := range ents {
		crashpoint.Hit("remove trash entry " + e.Name())
		if err := os.RemoveAll(filepath.Join(trash, e.Name())); err != nil {
			return err
		}
	}
	return os.RemoveAll(trash)
}

// Release drops the lock and keeps the directory, for the next run to
// claim (a commit that must be finished later).
func (d *Dir) Release() {
	if d == nil {
		return
	}
	if d.lock != nil {
		d.lock.Close()
		d.lock = nil
	}
	if d.marker != nil {
		d.marker.Close()
		d.marker = nil
	}
}

// IsMarked says whether name is one of olmcat's temporary directories by
// its name alone (in use or being removed): a sweep of its place removes
// it once no process holds it.
func IsMarked(name string) bool {
	return strings.HasSuffix(name, liveMark) || strings.HasSuffix(name, trashMark)
}

// IsTrash says whether name is a temporary directory being removed: its
// content is never used again.
func IsTrash(name string) bool { return strings.HasSuffix(name, trashMark) }

// Claim locks and returns the abandoned temporary directories
// parent/prefix*: those no live process holds. The caller owns them now
// (no other run claims them meanwhile) and finishes or removes each
// (Remove). Abandoned trash (a removal a kill interrupted) is removed
// here, never returned: its paths are the second result. Directories of
// runs still going and directories that are not olmcat's (neither marked
// by name nor holding an owner marker) are left alone; a missing parent
// has none.
func Claim(parent, prefix string) ([]*Dir, []string, error) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("look for abandoned temporary directories in %s: %w", parent, err)
	}
	var claimed []*Dir
	var trashed []string
	fail := func(err error) ([]*Dir, []string, error) {
		for _, c := range claimed {
			c.Release()
		}
		return nil, trashed, err
	}
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		d, err := claim(filepath.Join(parent, e.Name()))
		if err != nil {
			return fail(err)
		}
		switch {
		case d == nil:
		case IsTrash(e.Name()):
			err := removeTrash(d.Path)
			d.Release()
			if err != nil {
				return fail(fmt.Errorf("remove abandoned temporary directory %s: %w", d.Path, err))
			}
			trashed = append(trashed, d.Path)
		default:
			claimed = append(claimed, d)
		}
	}
	return claimed, trashed, nil
}

// claim locks dir if it is olmcat's and its owner is gone (nil if it is
// alive or not olmcat's).
func claim(dir string) (*Dir, error) {
	var marker *os.File
	if !IsMarked(filepath.Base(dir)) {
		// An older release's directory: its owner locked the marker.
		var err error
		if marker, err = lockMarker(dir); marker == nil || err != nil {
			return nil, err
		}
	}
	lock, err := lockDir(dir)
	if err != nil {
		if marker != nil {
			marker.Close()
		}
		if errors.Is(err, errTaken) {
			return nil, nil
		}
		return nil, fmt.Errorf("check temporary directory %s: %w", dir, err)
	}
	return &Dir{Path: dir, lock: lock, marker: marker}, nil
}

// lockMarker locks the owner marker of an older release's directory: nil
// when there is none or its owner is alive.
func lockMarker(dir string) (*os.File, error) {
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
	return f, nil
}

// Sweep removes the abandoned temporary directories parent/prefix* (see
// Claim) and returns their paths.
func Sweep(parent, prefix string) ([]string, error) {
	claimed, removed, err := Claim(parent, prefix)
	if err != nil {
		return removed, err
	}
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

// Scratch is a marked temporary directory prefix* in os.TempDir(), for
// work that is no output of its own: a run killed while it works leaves
// it for the next run with the same prefix, which first removes those
// (Sweep), passing each path removed to swept.
func Scratch(prefix string, swept func(dir string)) (*Dir, error) {
	removed, err := Sweep(os.TempDir(), prefix)
	for _, dir := range removed {
		swept(dir)
	}
	if err != nil {
		return nil, err
	}
	return Create(os.TempDir(), prefix)
}
