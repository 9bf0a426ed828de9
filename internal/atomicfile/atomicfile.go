// Package atomicfile writes a file whole or not at all: through a
// temporary file in a temporary directory beside the destination
// (internal/tempdir: owner marker, swept by the next write of the same
// destination after a kill) that is renamed (or linked) into place only
// once everything was written.
package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/operator-catalog/olmcat/internal/crashpoint"
	"github.com/operator-catalog/olmcat/internal/pathcheck"
	"github.com/operator-catalog/olmcat/internal/tempdir"
)

// File is a file being written; nothing is visible at its destination
// before Commit.
type File struct {
	dest  string
	force bool
	dir   *tempdir.Dir
	f     *os.File
	// Swept lists the temporary directories of earlier, killed writes of
	// the same destination that Create removed.
	Swept []string
}

// prefix names dest's temporary directories.
func prefix(dest string) string { return "." + filepath.Base(dest) + ".tmp-" }

// Create prepares writing dest, whose directory must exist. Without
// force an existing dest is refused (an error matching
// pathcheck.ErrExists), now and at Commit. A symlink is written through:
// the file it points to is replaced (Resolve), and a destination that is
// no regular file is refused (ErrNotRegular).
func Create(dest string, force bool, opts ...Option) (*File, error) {
	var o writeOptions
	for _, opt := range opts {
		opt(&o)
	}
	dest, err := Resolve(dest)
	if err != nil {
		return nil, err
	}
	if !force {
		if _, err := os.Lstat(dest); err == nil {
			return nil, pathcheck.Exists("%s exists", dest)
		}
	}
	parent := filepath.Dir(dest)
	swept, err := tempdir.Sweep(parent, prefix(dest))
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", dest, err)
	}
	// Told before anything new is written: a kill during this write
	// leaves nothing that says what was removed.
	if o.onSwept != nil {
		for _, d := range swept {
			o.onSwept(d)
		}
	}
	dir, err := tempdir.Create(parent, prefix(dest))
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", dest, err)
	}
	crashpoint.Hit("create " + dest)
	f, err := os.OpenFile(filepath.Join(dir.Path, filepath.Base(dest)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		_ = dir.Remove()
		return nil, fmt.Errorf("write %s: %w", dest, err)
	}
	return &File{dest: dest, force: force, dir: dir, f: f, Swept: swept}, nil
}

// Write writes p to the temporary file.
func (f *File) Write(p []byte) (int, error) { return f.f.Write(p) }

// Commit closes the file and moves it into place: by rename with force,
// otherwise by link, which fails if dest appeared meanwhile.
func (f *File) Commit() error {
	crashpoint.Hit("written " + f.dest)
	err := f.f.Sync()
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	f.f = nil
	if err != nil {
		_ = f.dir.Remove()
		return fmt.Errorf("write %s: %w", f.dest, err)
	}
	tmp := filepath.Join(f.dir.Path, filepath.Base(f.dest))
	crashpoint.Hit("move into place " + f.dest)
	if f.force {
		err = os.Rename(tmp, f.dest)
	} else if err = os.Link(tmp, f.dest); os.IsExist(err) {
		err = pathcheck.Exists("%s exists", f.dest)
	}
	if rerr := f.dir.Remove(); err == nil {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", f.dest, err)
	}
	return nil
}

// Discard removes the temporary file unless committed. It does nothing
// on a nil File, so callers may defer it.
func (f *File) Discard() {
	if f == nil {
		return
	}
	if f.f != nil {
		f.f.Close()
		f.f = nil
	}
	_ = f.dir.Remove()
}

// Option configures Create and Write.
type Option func(*writeOptions)

type writeOptions struct{ onSwept func(dir string) }

// OnSwept has fn called with each temporary directory of an earlier,
// killed write of the same destination that was removed, so that the
// caller can tell the user.
func OnSwept(fn func(dir string)) Option { return func(o *writeOptions) { o.onSwept = fn } }

// Write writes dest with write (through a buffer) so that dest is either
// the old file or the whole new one (see Create and Commit).
func Write(dest string, force bool, write func(io.Writer) error, opts ...Option) error {
	f, err := Create(dest, force, opts...)
	if err != nil {
		return err
	}
	defer f.Discard()
	bw := bufio.NewWriterSize(f, 256*1024)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", dest, err)
	}
	return f.Commit()
}
