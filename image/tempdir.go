package image

import (
	"fmt"
	"os"

	"github.com/operator-catalog/olmcat/internal/tempdir"
)

// Name prefixes of the temporary directories of image extraction and
// image builds in the temporary directory (WithTempDir,
// WithBuildTempDir).
const (
	extractPrefix = "olmcat-image-"
	buildPrefix   = "olmcat-build-"
	// partialPrefix names a layer download in the layer cache's blob
	// directory until it is verified and renamed into place.
	partialPrefix = ".partial-"
)

// newTempDir creates a marked temporary directory named prefix* in parent
// (os.TempDir() when empty), first removing those of earlier runs that
// were killed (SIGKILL, a SIGPIPE from a closed pipe, a crash), each
// passed to note when it is set.
func newTempDir(parent, prefix string, note func(string)) (*tempdir.Dir, error) {
	if parent == "" {
		parent = os.TempDir()
	}
	if err := sweepTempDirs(parent, prefix, note); err != nil {
		return nil, err
	}
	return tempdir.Create(parent, prefix)
}

// sweepTempDirs removes the abandoned temporary directories parent/prefix*
// of earlier runs that were killed, each passed to note when it is set.
func sweepTempDirs(parent, prefix string, note func(string)) error {
	swept, err := tempdir.Sweep(parent, prefix)
	if err != nil {
		return err
	}
	if note != nil {
		for _, dir := range swept {
			note(fmt.Sprintf("removed abandoned temporary directory %s (left by an earlier run that was killed)", dir))
		}
	}
	return nil
}
