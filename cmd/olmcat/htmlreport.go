package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/operator-catalog/olmcat/internal/pathcheck"
)

// checkReportPath validates an HTML report path before any work is done
// (pathcheck's rules for every writer: it is not, holds no and lies in no
// input, nor the output directory outDir when there is one), its
// directory exists and takes new files, and it is not an existing file
// unless force.
func checkReportPath(path string, force bool, outDir string, inputs ...string) error {
	if err := pathcheck.Separate("report file", path, inputs...); err != nil {
		return err
	}
	if outDir != "" {
		if err := pathcheck.Outside("report file", path, "output directory", outDir); err != nil {
			return err
		}
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("report file %s: directory %s does not exist", path, dir)
	}
	// The page is written after the output is committed: a directory that
	// takes no new file must be refused now, not after the commit.
	probe, err := os.CreateTemp(dir, "."+filepath.Base(path)+".probe-*")
	if err != nil {
		return fmt.Errorf("report file %s: cannot write in %s: %w", path, dir, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	switch st, err := os.Stat(path); {
	case err == nil && st.IsDir():
		return fmt.Errorf("report file %s: is a directory", path)
	case err == nil && !force:
		return fmt.Errorf("report file %s: exists (pass --force to replace it)", path)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("report file %s: %w", path, err)
	}
	return nil
}
