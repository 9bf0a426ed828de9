// Package atomicfile writes a file whole or not at all: through a
// temporary file in the destination's directory that is renamed (or
// linked) into place only once everything was written and synced.
package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write writes dest with write (through a buffer) so that dest is either
// the old file or the whole new one. Without force an existing dest is
// never replaced: the new file is linked into place, which fails if dest
// appeared meanwhile. The file is created with mode 0644.
func Write(dest string, force bool, write func(io.Writer) error) error {
	if !force {
		if _, err := os.Lstat(dest); err == nil {
			return fmt.Errorf("%s exists (use --force to replace it)", dest)
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", dest, err)
	}
	defer os.Remove(tmp.Name())
	bw := bufio.NewWriterSize(tmp, 256*1024)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", dest, err)
	}
	if force {
		err = os.Rename(tmp.Name(), dest)
	} else {
		err = os.Link(tmp.Name(), dest)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", dest, err)
	}
	return nil
}
