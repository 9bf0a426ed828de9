package declcfg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
)

// blobChoice is the blob WithBlob picks.
type blobChoice struct {
	index int
	raw   []byte
}

// WithFile makes LoadDir load only the file rel (slash- or
// OS-separated, relative to root, which it may not leave) as a blob
// stream, whatever its name and .indexignore say; olm.bundle.object refs
// are resolved against root as for the whole directory. EachPackage
// ignores it.
func WithFile(rel string) LoadOption {
	return func(o *loadOptions) { o.file = rel }
}

// WithBlob makes LoadDir decode only blob #index (0-based, as in Origin)
// of the file rel (see WithFile), exactly as loading the directory decodes
// it, refs resolved against rel's directory. When raw is not nil it is
// that blob's bytes and the file is not read (a blob kept from an earlier
// read, or one of a template file), which the result may point into, so
// raw must not change afterwards; otherwise the blobs before it are only
// framed, not decoded. EachPackage ignores it.
func WithBlob(rel string, index int, raw []byte) LoadOption {
	return func(o *loadOptions) {
		o.file = rel
		o.blob = &blobChoice{index: index, raw: raw}
	}
}

// WithRootFinished tells LoadDir that this reader has already read root
// once, which finished any unfinished write of it (see openRoot), and
// notices a file changed since (a server that stamped its files, reading
// one blob back per call): LoadDir does not look for an unfinished write
// again, which lists root and its parent directory on every call.
func WithRootFinished() LoadOption {
	return func(o *loadOptions) { o.finished = true }
}

// loadOne is LoadDir with WithFile or WithBlob.
func loadOne(ctx context.Context, r *os.Root, root string, o loadOptions) (*DeclarativeConfig, error) {
	rel := path.Clean(strings.ReplaceAll(o.file, string(os.PathSeparator), "/"))
	if !fs.ValidPath(rel) {
		return nil, fmt.Errorf("load %s: path is not inside the catalog root %s", o.file, root)
	}
	if o.blob == nil {
		return loadFile(ctx, r, rel, o)
	}
	if o.blob.raw != nil {
		cfg := &DeclarativeConfig{}
		if err := addBlob(cfg, r, o.blob.raw, Origin{File: rel, Index: o.blob.index}, o.lean, true); err != nil {
			return nil, fmt.Errorf("load %s: blob #%d: %w", rel, o.blob.index, err)
		}
		return cfg, nil
	}
	return loadBlobAt(ctx, r, rel, o.blob.index, o.lean)
}

// errBlobFound stops loadBlobAt's scan once its blob is decoded.
var errBlobFound = errors.New("blob found")

// loadBlobAt decodes blob #index of the file rel; the blobs before it are
// only framed.
func loadBlobAt(ctx context.Context, r *os.Root, rel string, index int, lean bool) (*DeclarativeConfig, error) {
	f, err := r.Open(rel)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", rel, err)
	}
	defer f.Close()
	cfg := &DeclarativeConfig{}
	err = DecodeStream(f, func(blob json.RawMessage, i int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if i != index {
			return nil
		}
		if err := addBlob(cfg, r, blob, Origin{File: rel, Index: i}, lean, false); err != nil {
			return fmt.Errorf("load %s: blob #%d: %w", rel, i, err)
		}
		return errBlobFound
	})
	switch {
	case errors.Is(err, errBlobFound):
		return cfg, nil
	case err != nil:
		return nil, err
	}
	return nil, fmt.Errorf("load %s: no blob #%d", rel, index)
}
