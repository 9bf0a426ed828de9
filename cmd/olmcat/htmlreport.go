package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/operator-catalog/olmcat/internal/pathcheck"
)

// checkReportPath validates an HTML report path before any work is done:
// its directory exists, it is not an existing file unless force, and it
// neither is, contains nor lies inside any of the paths in avoid (inputs
// and the output directory).
func checkReportPath(path string, force bool, avoid ...string) error {
	abs, err := pathcheck.Resolve(path)
	if err != nil {
		return fmt.Errorf("report %s: %w", path, err)
	}
	if st, err := os.Stat(filepath.Dir(abs)); err != nil || !st.IsDir() {
		return fmt.Errorf("report %s: directory %s does not exist", path, filepath.Dir(abs))
	}
	for _, other := range avoid {
		o, err := pathcheck.Resolve(other)
		if err != nil {
			return fmt.Errorf("report %s: %w", path, err)
		}
		if pathcheck.Within(abs, o) || pathcheck.Within(o, abs) {
			return fmt.Errorf("report %s %w %s; write the report outside the inputs and the output", path, pathcheck.ErrOverlap, other)
		}
	}
	switch st, err := os.Stat(abs); {
	case err == nil && st.IsDir():
		return fmt.Errorf("report %s: is a directory", path)
	case err == nil && !force:
		return fmt.Errorf("report %s: exists (pass --force to replace it)", path)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("report %s: %w", path, err)
	}
	return nil
}
