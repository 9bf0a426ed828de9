// Package outdir writes a directory output all or nothing, whatever kills
// the process at whatever step, and lets the next run finish or discard
// what a killed run left.
//
// A transaction works in a temporary directory W (internal/tempdir:
// olmcat's by its name, locked while the process lives) beside the output, or inside it
// when the output is a mount point (which cannot be renamed). The new
// content is written to W/new. Commit first writes a commit record
// (W/commit, renamed into place), then moves what is replaced into W/old
// and W/new's content into place, each move one rename, then removes W:
//
//   - killed before the commit record exists: the output is untouched; the
//     next run removes W (swept);
//   - killed after: the next run that writes or reads the same output
//     (FinishForRead) finds W abandoned with its record and finishes the
//     moves (the record says which), so the output is the new one,
//     complete; then removes W. Unless another run wrote the output in
//     the meantime: that output stays and W is removed (Swept.Superseded).
//
// An output path that is a symlink is written through to its target; one
// that is no directory is refused by Begin before any work (ErrNotDir).
//
// W holds an .indexignore that hides it from catalog loaders, for the case
// where it lies inside the output directory.
//
// A transaction holds the output's write lock (internal/writelock) from
// Begin until it is committed or aborted; a caller that read the output
// before (an edit of a catalog) takes it first, and Begin shares it.
package outdir

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/operator-catalog/olmcat/internal/crashpoint"
	"github.com/operator-catalog/olmcat/internal/pathcheck"
	"github.com/operator-catalog/olmcat/internal/tempdir"
	"github.com/operator-catalog/olmcat/internal/writelock"
)

const (
	recordFile = "commit"
	newDir     = "new"
	oldDir     = "old"
	// lostFound is what mkfs puts at the root of ext* file systems: not
	// content, neither counted nor moved.
	lostFound = "lost+found"
)

// record is the commit record: what Commit moves.
type record struct {
	// Entries: only the named top-level entries of the output (Old) are
	// replaced, the output directory itself stays (a mount point, or a
	// catalog whose packages are replaced). Otherwise the output
	// directory is replaced as a whole by rename.
	Entries bool     `json:"entries"`
	Old     []string `json:"old,omitempty"`
	// Keep: the output is not replaced (no force); it was absent or
	// empty when the commit was decided. Found filled at the move, it
	// was written by another run meanwhile, which wins: this commit is
	// dropped (errLost). Records of older releases lack it: replaced.
	Keep bool `json:"keep,omitempty"`
}

// errLost: another run filled the output after this commit was decided
// without force; that run's output stays.
var errLost = errors.New("written by another run meanwhile")

// ErrNotDir is matched (errors.Is) by the errors of Begin for an output
// path that exists and is not a directory, or is a symlink that leads to
// none: found before any work, and a usage error (the path given is
// wrong), never replaced.
var ErrNotDir = errors.New("not a directory")

// notDirError is an ErrNotDir with its own message.
type notDirError struct{ msg string }

func (e *notDirError) Error() string        { return e.msg }
func (e *notDirError) Is(target error) bool { return target == ErrNotDir }

// Tx is one write of a directory output.
type Tx struct {
	out     string
	work    *tempdir.Dir
	entries bool
	force   bool
	swept   []Swept
	done    bool
	lock    *writelock.Lock
}

// Swept is a temporary directory of an earlier, killed run that Begin
// found abandoned.
type Swept struct {
	// Dir is the temporary directory, now removed.
	Dir string
	// Output is the output it was writing.
	Output string
	// Finished is true when the killed run had committed: its moves were
	// finished, so Output holds the complete new content.
	Finished bool
	// Superseded is true when the killed run had committed without
	// force but another run wrote Output meanwhile: that output stays,
	// the killed run's is removed.
	Superseded bool
}

// String says what was done, for the user.
func (s Swept) String() string {
	if s.Superseded {
		return fmt.Sprintf("removed temporary directory %s of an earlier run that was killed while committing: another run had written %s meanwhile, which is kept", s.Dir, s.Output)
	}
	if s.Finished {
		return fmt.Sprintf("finished the write of %s that an earlier run had committed when it was killed (its temporary directory %s is removed)", s.Output, s.Dir)
	}
	return fmt.Sprintf("removed abandoned temporary directory %s (left by an earlier run that was killed)", s.Dir)
}

// Prefix is the name prefix of out's temporary directories.
func Prefix(out string) string { return "." + filepath.Base(out) + ".tmp-" }

// Begin prepares writing the directory out (which need not exist): it
// finishes or removes what killed runs left for out (Swept) and creates
// the temporary directory. When out is an existing mount point the
// content is replaced inside it at Commit, otherwise out is replaced by
// rename. Whether out may be replaced (force) is checked again at Commit.
// An out that is a symlink is written through: its target is the output,
// with the same rules. An out that is not a directory (or a symlink to
// none) is refused here, before any work (ErrNotDir).
func Begin(out string, force bool) (*Tx, error) {
	out, err := Check(out)
	if err != nil {
		return nil, err
	}
	mount, err := isMountPoint(out)
	if err != nil {
		return nil, err
	}
	return begin(out, mount, force)
}

// BeginEntries prepares replacing some top-level entries of the existing
// directory dir (a symlink to it is followed), leaving the others as they
// are (CommitEntries).
func BeginEntries(dir string) (*Tx, error) {
	dir, err := resolve(dir)
	if err != nil {
		return nil, err
	}
	return begin(dir, true, true)
}

// Check is what Begin decides about out before any work, for callers
// that work long before they begin: the output written (out, or the
// directory its symlink leads to), or ErrNotDir for an out that is not a
// directory or a symlink that leads to none.
func Check(out string) (string, error) {
	out, err := resolve(out)
	if err != nil {
		return "", err
	}
	if st, err := os.Lstat(out); err == nil && !st.IsDir() {
		return "", &notDirError{fmt.Sprintf("output directory %s exists and is not a directory", out)}
	}
	return out, nil
}

// resolve is the output that writing out writes: out itself, or the
// directory its symlink leads to (refused when it leads nowhere).
func resolve(out string) (string, error) {
	out = filepath.Clean(out)
	st, err := os.Lstat(out)
	if err != nil || st.Mode()&os.ModeSymlink == 0 {
		return out, nil
	}
	target, err := filepath.EvalSymlinks(out)
	if err == nil {
		return target, nil
	}
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		link, _ := os.Readlink(out)
		return "", &notDirError{fmt.Sprintf("output %s is a symlink to %s, which does not exist: create the directory or pass a path that is not a dangling symlink", out, link)}
	}
	return "", fmt.Errorf("output %s: %w", out, err)
}

func begin(out string, entries, force bool) (tx *Tx, err error) {
	lock, err := writelock.Acquire(context.Background(), out, writelock.Options{Wait: -1})
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			lock.Release()
		}
	}()
	swept, err := Recover(out)
	if err != nil {
		return nil, err
	}
	parent := filepath.Dir(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("create parent of %s: %w", out, err)
	}
	where := parent
	if entries {
		if where, err = entriesWorkParent(out); err != nil {
			return nil, err
		}
	}
	work, err := tempdir.Create(where, Prefix(out))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", out, err)
	}
	err = os.WriteFile(filepath.Join(work.Path, ".indexignore"), []byte("*\n"), 0o644)
	if err == nil {
		err = os.Mkdir(filepath.Join(work.Path, newDir), 0o755)
	}
	if err != nil {
		_ = work.Remove()
		return nil, fmt.Errorf("%s: %w", out, err)
	}
	return &Tx{out: out, work: work, entries: entries, force: force, swept: swept, lock: lock}, nil
}

// entriesWorkParent is where the temporary directory for replacing
// entries of dir goes: beside dir when both are on one mount and the
// parent can be written, otherwise inside dir (hidden from loaders by its
// .indexignore): replacing entries only needs dir itself writable.
func entriesWorkParent(dir string) (string, error) {
	mount, err := isMountPoint(dir)
	if err != nil {
		return "", err
	}
	if mount || unix.Access(filepath.Dir(dir), unix.W_OK|unix.X_OK) != nil {
		return dir, nil
	}
	return filepath.Dir(dir), nil
}

// Swept lists what Begin finished or removed.
func (t *Tx) Swept() []Swept { return t.swept }

// Dir is the directory to write the new content to.
func (t *Tx) Dir() string { return filepath.Join(t.work.Path, newDir) }

// Abort removes the temporary directory unless Commit got as far as the
// commit record (then the next run finishes the commit). Idempotent.
func (t *Tx) Abort() error {
	if t.done {
		return nil
	}
	t.done = true
	defer t.lock.Release()
	return t.work.Remove()
}

// Commit puts the new content in place: in a mount point by replacing
// its entries, otherwise by renaming the new directory over out. An
// existing non-empty out is only replaced with force.
func (t *Tx) Commit() error {
	if t.done {
		return fmt.Errorf("commit %s: already committed or aborted", t.out)
	}
	if t.entries {
		old, err := Entries(t.out)
		if err != nil {
			return fmt.Errorf("commit %s: %w", t.out, err)
		}
		if len(old) > 0 && !t.force {
			return pathcheck.Exists("commit %s: output directory exists and is not empty", t.out)
		}
		return t.CommitEntries(old)
	}
	st, err := os.Lstat(t.out)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return fmt.Errorf("commit %s: %w", t.out, err)
	case !st.IsDir():
		return fmt.Errorf("commit %s: output exists and is not a directory", t.out)
	case !t.force:
		old, err := Entries(t.out)
		if err != nil {
			return fmt.Errorf("commit %s: %w", t.out, err)
		}
		if len(old) > 0 {
			return pathcheck.Exists("commit %s: output directory exists and is not empty", t.out)
		}
	}
	return t.commit(record{Keep: !t.force})
}

// CommitEntries replaces the named top-level entries of the output
// directory (those that exist) by the entries written to Dir.
func (t *Tx) CommitEntries(replace []string) error {
	if t.done {
		return fmt.Errorf("commit %s: already committed or aborted", t.out)
	}
	var old []string
	for _, name := range replace {
		if _, err := os.Lstat(filepath.Join(t.out, name)); err == nil {
			old = append(old, name)
		}
	}
	if err := os.Mkdir(filepath.Join(t.work.Path, oldDir), 0o755); err != nil {
		return fmt.Errorf("commit %s: %w", t.out, err)
	}
	return t.commit(record{Entries: true, Old: old})
}

func (t *Tx) commit(rec record) error {
	data, err := json.Marshal(rec)
	if err == nil {
		err = writeRecord(t.work.Path, data)
	}
	if err != nil {
		return fmt.Errorf("commit %s: %w", t.out, err)
	}
	// From here on the commit is decided: a failure leaves the record
	// for the next run to finish.
	t.done = true
	defer t.lock.Release()
	if err := finish(t.out, t.work.Path, rec); err != nil {
		if errors.Is(err, errLost) {
			lost := pathcheck.Exists("commit %s: written by another run meanwhile, which is kept: this run's output is removed", t.out)
			if rerr := t.work.Remove(); rerr != nil {
				return fmt.Errorf("%w (%w)", lost, rerr)
			}
			return lost
		}
		t.work.Release()
		return fmt.Errorf("commit %s: %w (the next olmcat run writing %s finishes it)", t.out, err, t.out)
	}
	crashpoint.Hit("remove temporary directory")
	return t.work.Remove()
}

// writeRecord writes the commit record whole or not at all.
func writeRecord(work string, data []byte) error {
	tmp := filepath.Join(work, recordFile+".new")
	crashpoint.Hit("write commit record")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	crashpoint.Hit("rename commit record")
	return os.Rename(tmp, filepath.Join(work, recordFile))
}

// finish does (or completes) the moves of a commit. Each step checks what
// is already done, so that it can run again after a kill at any point.
func finish(out, work string, rec record) error {
	newPath, oldPath := filepath.Join(work, newDir), filepath.Join(work, oldDir)
	if !rec.Entries {
		if !exists(newPath) {
			return nil // the new directory is in place
		}
		if rec.Keep {
			// Over an absent or empty output only: rename(2) refuses to
			// replace a directory that has entries, or a file.
			crashpoint.Hit("move new output into place")
			return moveIn(newPath, out)
		}
		if exists(out) && !exists(oldPath) {
			crashpoint.Hit("move old output aside")
			if err := os.Rename(out, oldPath); err != nil {
				return fmt.Errorf("move old output aside: %w", err)
			}
		}
		crashpoint.Hit("move new output into place")
		return moveIn(newPath, out)
	}
	// The old entries all go first: a name in both old and new is the
	// old one as long as some old entry is still in place.
	for _, name := range rec.Old {
		if !exists(filepath.Join(oldPath, name)) && exists(filepath.Join(out, name)) {
			crashpoint.Hit("move old entry aside " + name)
			if err := os.Rename(filepath.Join(out, name), filepath.Join(oldPath, name)); err != nil {
				return fmt.Errorf("move %s aside: %w", name, err)
			}
		}
	}
	ents, err := os.ReadDir(newPath)
	if err != nil {
		return err
	}
	for _, e := range ents {
		crashpoint.Hit("move new entry into place " + e.Name())
		if err := os.Rename(filepath.Join(newPath, e.Name()), filepath.Join(out, e.Name())); err != nil {
			return fmt.Errorf("move %s into place: %w", e.Name(), err)
		}
	}
	return nil
}

// moveIn renames the new output directory to out, which may be absent or
// an empty directory (rename(2) replaces that; os.Rename refuses any
// directory). An out that has entries, or is a file, was written by
// another run after this commit was decided: errLost.
func moveIn(newPath, out string) error {
	err := syscall.Rename(newPath, out)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) || errors.Is(err, syscall.ENOTDIR):
		return errLost
	}
	return &os.LinkError{Op: "rename", Old: newPath, New: out, Err: err}
}

// Entries lists the top-level entries of dir that are content: not
// lost+found, not olmcat's temporary directories for dir and not its
// write lock file.
func Entries(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	prefix := Prefix(dir)
	names = slices.DeleteFunc(names, func(n string) bool {
		return n == lostFound || n == writelock.InsideName || strings.HasPrefix(n, prefix)
	})
	slices.Sort(names)
	return names, nil
}

// IsEmpty says whether dir holds no content (see Entries).
func IsEmpty(dir string) (bool, error) {
	names, err := Entries(dir)
	return len(names) == 0, err
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// isMountPoint says whether dir is an existing directory that is the
// root of a mount (a file system, a bind mount, a container volume),
// which rename cannot move.
func isMountPoint(dir string) (bool, error) {
	var stx unix.Statx_t
	err := unix.Statx(unix.AT_FDCWD, dir, unix.AT_STATX_DONT_SYNC, unix.STATX_TYPE|unix.STATX_INO, &stx)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
		return false, nil
	}
	if err != nil && !errors.Is(err, unix.ENOSYS) {
		return false, fmt.Errorf("%s: %w", dir, err)
	}
	if err == nil {
		if stx.Mode&unix.S_IFMT != unix.S_IFDIR {
			return false, nil
		}
		if stx.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT != 0 {
			return stx.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0, nil
		}
	}
	// Older kernels: a mount root lies on another device than its parent
	// (bind mounts of the same file system are not told apart).
	var st, pst syscall.Stat_t
	if err := syscall.Stat(dir, &st); err != nil {
		return false, fmt.Errorf("%s: %w", dir, err)
	}
	if err := syscall.Stat(filepath.Dir(dir), &pst); err != nil {
		return false, fmt.Errorf("%s: %w", filepath.Dir(dir), err)
	}
	return st.Dev != pst.Dev || st.Ino == pst.Ino, nil
}
