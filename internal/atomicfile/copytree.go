package atomicfile

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// CopyTree copies the directories and regular files of from into to,
// each file written whole (Write); other entries (symlinks, devices) are
// skipped. A file that exists in to already is replaced only when
// overwrite is set.
func CopyTree(from, to string, overwrite bool, opts ...Option) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		target := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if _, err := os.Stat(target); err == nil && !overwrite {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return WriteBytes(target, data, opts...)
	})
}

// WriteBytes replaces dest with data, whole or not at all (Write with
// force).
func WriteBytes(dest string, data []byte, opts ...Option) error {
	return Write(dest, true, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}, opts...)
}
