package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/operator-catalog/olmcat/internal/pathcheck"
)

// reportFile is a --report destination, checked and opened before any
// output is written: a report that cannot be written must fail the run
// before it commits anything, not after. The report goes to a temporary
// file beside the destination that is renamed into place.
type reportFile struct {
	path string
	tmp  *os.File
}

// openReportFile checks that path may be written (it is not, and does not
// lie inside, an input or the output directory being replaced, and its
// folder is writable) and opens its temporary file.
func openReportFile(path, outDir string, inputs ...string) (*reportFile, error) {
	if err := pathcheck.Separate("report file", path, inputs...); err != nil {
		return nil, err
	}
	if err := pathcheck.Outside("report file", path, "output directory", outDir); err != nil {
		return nil, err
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, fmt.Errorf("report file %s is a directory", path)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("report file %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("report file %s: %w", path, err)
	}
	return &reportFile{path: path, tmp: tmp}, nil
}

// write writes v as indented JSON and moves the file into place.
func (r *reportFile) write(v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	if _, err := r.tmp.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("write report %s: %w", r.path, err)
	}
	if err := r.tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("write report %s: %w", r.path, err)
	}
	if err := r.tmp.Close(); err != nil {
		return fmt.Errorf("write report %s: %w", r.path, err)
	}
	if err := os.Rename(r.tmp.Name(), r.path); err != nil {
		return fmt.Errorf("write report %s: %w", r.path, err)
	}
	r.tmp = nil
	return nil
}

// discard removes the temporary file when the report was not written.
func (r *reportFile) discard() {
	if r.tmp != nil {
		r.tmp.Close()
		_ = os.Remove(r.tmp.Name())
	}
}
