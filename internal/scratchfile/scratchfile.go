// Package scratchfile owns olmcat's append-only scratch files: data a
// command keeps on disk instead of in memory because it grows with the
// catalog (parity's ListBundles answers and the differences it keeps for
// later, a template render's formatted blobs), appended once and read
// back by the offset Append returned.
//
// A scratch file has no name (O_TMPFILE, or unlinked at once where the
// file system has no O_TMPFILE): a process killed outright leaves
// nothing behind, and no other process can open, read or replace it.
package scratchfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// File is an append-only scratch file, safe for concurrent use. Appends
// are buffered; a read of bytes still in the buffer writes the buffer
// out first.
type File struct {
	mu      sync.Mutex
	f       *os.File
	w       *bufio.Writer
	size    int64 // bytes appended
	written int64 // bytes in f, the rest in w
}

// bufferSize is the append buffer: appends are often a few hundred bytes
// (a difference, a small blob), and one write per buffer saves a system
// call for each.
const bufferSize = 64 << 10

// New creates a scratch file in dir (os.TempDir() when empty).
func New(dir string) (*File, error) {
	f, err := anonymous(dir)
	if err != nil {
		return nil, fmt.Errorf("create scratch file: %w", err)
	}
	return &File{f: f, w: bufio.NewWriterSize(f, bufferSize)}, nil
}

// anonymous opens a read-write file in dir that no name leads to.
func anonymous(dir string) (*os.File, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	f, err := os.OpenFile(dir, os.O_RDWR|unix.O_TMPFILE, 0o600)
	if err == nil {
		return f, nil
	}
	if !errors.Is(err, unix.EOPNOTSUPP) && !errors.Is(err, unix.EISDIR) && !errors.Is(err, unix.EINVAL) {
		return nil, err
	}
	f, err = os.CreateTemp(dir, "olmcat-scratch-*")
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Append adds p at the end of the file and returns its offset.
func (s *File) Append(p []byte) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.w.Write(p); err != nil {
		return 0, fmt.Errorf("write scratch file: %w", err)
	}
	s.written = s.size + int64(len(p)) - int64(s.w.Buffered())
	off := s.size
	s.size += int64(len(p))
	return off, nil
}

// ReadAt fills p with the bytes appended at off.
func (s *File) ReadAt(p []byte, off int64) error {
	if err := s.readable(off, int64(len(p))); err != nil {
		return err
	}
	if _, err := s.f.ReadAt(p, off); err != nil {
		return fmt.Errorf("read scratch file: %w", err)
	}
	return nil
}

// Section returns a reader of the n bytes appended at off, for a caller
// that copies or decodes them as a stream.
func (s *File) Section(off, n int64) (*io.SectionReader, error) {
	if err := s.readable(off, n); err != nil {
		return nil, err
	}
	return io.NewSectionReader(s.f, off, n), nil
}

// readable checks that n bytes at off were appended and writes them out
// of the buffer when they are still in it.
func (s *File) readable(off, n int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	end := off + n
	if off < 0 || n < 0 || end > s.size {
		return fmt.Errorf("read scratch file: bytes %d to %d of %d", off, end, s.size)
	}
	if end > s.written {
		if err := s.w.Flush(); err != nil {
			return fmt.Errorf("write scratch file: %w", err)
		}
		s.written = s.size
	}
	return nil
}

// Size is the number of bytes appended.
func (s *File) Size() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.size
}

// Close drops the file and its contents.
func (s *File) Close() error { return s.f.Close() }
