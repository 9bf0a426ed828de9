package declcfg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// WalkBlobs calls fn with every blob of the declarative config directory
// root as it is in its file (JSON as written, YAML converted to JSON),
// undecoded and unchecked beyond being an object: files in the walk order
// LoadDir uses (depth first, each directory's entries sorted bytewise,
// honouring .indexignore), blobs in document order within a file. One
// file is read at a time and one blob held, so the catalog is never held
// whole; blob is valid only until fn returns. It serves readers that
// re-encode the blobs themselves (catalogd's HTTP API serves them with
// its own encoding, olm.bundle.object refs left as they are), where
// LoadDir would decode them into typed blobs. The first error stops the
// walk and names its file and blob; an error from fn is returned as is.
func WalkBlobs(ctx context.Context, root string, fn func(file string, index int, blob json.RawMessage) error) error {
	r, err := openRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	files, err := listCatalogFiles(r)
	if err != nil {
		return fmt.Errorf("walk %s: %w", root, err)
	}
	for _, rel := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		f, err := r.Open(rel)
		if err != nil {
			return fmt.Errorf("load %s: %w", rel, err)
		}
		err = decodeStream(f, false, func(blob json.RawMessage, index int) error {
			if err := fn(rel, index, blob); err != nil {
				return &blobError{err: err}
			}
			return nil
		})
		f.Close()
		var be *blobError
		if errors.As(err, &be) {
			return be.err
		}
		if err != nil {
			return fmt.Errorf("load %s: %w", rel, err)
		}
	}
	return nil
}
