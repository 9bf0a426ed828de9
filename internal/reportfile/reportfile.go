// Package reportfile owns a report destination (a JSON or HTML report a
// command writes beside its real output): checked and opened before any
// work is done, so that a report that cannot be written fails the run
// before it commits anything, not after. The report goes to a temporary
// file beside the destination that is renamed into place
// (internal/atomicfile, swept by the next write after a kill); through a
// symlink, the file it points to is the one replaced. A device, a fifo or
// an open descriptor (/dev/stdout, /proc/self/fd/1) is written through
// instead, never replaced.
package reportfile

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/operator-catalog/olmcat/internal/atomicfile"
	"github.com/operator-catalog/olmcat/internal/pathcheck"
)

// File is an opened report destination: written once with Write or
// WriteJSON, or dropped with Discard.
type File struct {
	path    string
	tmp     *atomicfile.File
	through *os.File
}

// Open checks that path may be written: it is not, holds no and lies in
// no input, nor inside the output directory outDir being replaced (when
// there is one; both refusals wrap pathcheck.ErrOverlap); its folder
// exists and takes new files; an existing file there is replaced only
// with force (otherwise an error matching pathcheck.ErrExists, which the
// caller words with the way it asks for force). Then it opens the
// temporary file, or the destination itself when that is no regular
// file (nothing is replaced there, so force is not needed).
func Open(path, outDir string, force bool, inputs ...string) (*File, error) {
	if err := pathcheck.Separate("report file", path, inputs...); err != nil {
		return nil, err
	}
	if outDir != "" {
		if err := pathcheck.Outside("report file", path, "output directory", outDir); err != nil {
			return nil, err
		}
	}
	target, err := atomicfile.Resolve(path)
	if errors.Is(err, atomicfile.ErrNotRegular) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return nil, fmt.Errorf("report file %s: %w", path, err)
		}
		return &File{path: path, through: f}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("report file: %w", err)
	}
	dir := filepath.Dir(target)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("report file %s: directory %s does not exist", path, dir)
	}
	switch _, err := os.Stat(target); {
	case err == nil && !force:
		return nil, pathcheck.Exists("report file %s: exists", path)
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("report file %s: %w", path, err)
	}
	tmp, err := atomicfile.Create(target, true)
	if err != nil {
		return nil, fmt.Errorf("report file %s: cannot write in %s: %w", path, dir, err)
	}
	return &File{path: path, tmp: tmp}, nil
}

// WriteJSON writes v as indented JSON and moves the file into place.
func (r *File) WriteJSON(v any) error {
	return r.Write(func(w io.Writer) error {
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return fmt.Errorf("encode report: %w", err)
		}
		_, err = w.Write(append(data, '\n'))
		return err
	})
}

// Write fills the file with fn and moves it into place (or writes it
// through). An error of the move names the file already.
func (r *File) Write(fn func(io.Writer) error) error {
	var w io.Writer = r.tmp
	if r.through != nil {
		w = r.through
	}
	bw := bufio.NewWriter(w)
	err := fn(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		r.Discard()
		return fmt.Errorf("write report %s: %w", r.path, err)
	}
	if r.through != nil {
		f := r.through
		r.through = nil
		if err := f.Close(); err != nil {
			return fmt.Errorf("write report %s: %w", r.path, err)
		}
		return nil
	}
	f := r.tmp
	r.tmp = nil
	return f.Commit()
}

// Discard removes the temporary file when the report was not written.
// It does nothing on a nil File, so callers may defer it for an
// optional report.
func (r *File) Discard() {
	if r == nil {
		return
	}
	r.tmp.Discard()
	r.tmp = nil
	if r.through != nil {
		r.through.Close()
		r.through = nil
	}
}
