package declcfg

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/operator-catalog/olmcat/internal/jsonscan"
)

// firstLoadError turns an error of eachPackage into the error LoadDir
// gives: the first file in file order that fails (files before the
// failing one may not have been decoded yet). Other errors (fn's, the
// context's) are returned as they are.
func firstLoadError(ctx context.Context, r *os.Root, files []string, o loadOptions, err error) error {
	var fe *fileError
	if !errors.As(err, &fe) {
		return err
	}
	if err := loadEachFile(ctx, r, files[:fe.file+1], o, func(int, *DeclarativeConfig) {}); err != nil {
		return err
	}
	return fe.err
}

// scanFilePackages lists the packages each file's blobs name, reading only
// their schema, package and name keys. When a file cannot be scanned,
// LoadDir's error for the files up to it is returned (the same error, as
// LoadDir decodes with the same scanner first).
func scanFilePackages(ctx context.Context, r *os.Root, files []string, o loadOptions) ([][]string, error) {
	filePkgs := make([][]string, len(files))
	scanErr := make([]error, len(files))
	var g errgroup.Group
	g.SetLimit(o.concurrency)
	for i, rel := range files {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				scanErr[i] = err
				return nil
			}
			filePkgs[i], scanErr[i] = scanPackages(r, rel)
			return nil
		})
	}
	_ = g.Wait()
	for i, err := range scanErr {
		if err == nil {
			continue
		}
		if lerr := loadEachFile(ctx, r, files[:i+1], o, func(int, *DeclarativeConfig) {}); lerr != nil {
			return nil, lerr
		}
		return nil, err
	}
	return filePkgs, nil
}

// scanPackages lists the distinct packages of one file's blobs, as
// packageNames would list them after a full decode. Of a file of plain
// JSON objects only each blob's top-level keys are read (which also finds
// where the blob ends); anything else (YAML, a byte order mark, a blob whose keys
// do not read, a file too large to read whole) is framed and checked by
// DecodeStream, whose errors are LoadDir's. The quick path does not check
// the JSON grammar: a file it misreads is not valid JSON, and its full
// decode, which always follows, fails with LoadDir's error.
func scanPackages(r *os.Root, rel string) ([]string, error) {
	f, err := r.Open(rel)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", rel, err)
	}
	defer f.Close()
	if names, ok := quickScanPackages(f); ok {
		return names, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("load %s: %w", rel, err)
	}
	var names []string
	err = DecodeStream(f, func(blob json.RawMessage, index int) error {
		m, err := metaKeys(blob)
		if err != nil {
			return fmt.Errorf("load %s: blob #%d: %w", rel, index, err)
		}
		names = addPackageName(names, m)
		return nil
	})
	return names, err
}

// quickScanMax is the largest file scanPackages reads whole.
const quickScanMax = 64 << 20

// scanBuffers hold the files quickScanPackages reads (nothing it returns
// points into them: metaKeys copies the names).
var scanBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// quickScanPackages is scanPackages' quick path; ok is false when f must
// be scanned by DecodeStream instead.
func quickScanPackages(f *os.File) (names []string, ok bool) {
	st, err := f.Stat()
	if err != nil || st.Size() > quickScanMax {
		return nil, false
	}
	buf := scanBuffers.Get().(*bytes.Buffer)
	defer scanBuffers.Put(buf)
	buf.Reset()
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, false
	}
	data := buf.Bytes()
	// One walk per blob: reading its top-level keys finds its end.
	for i := jsonscan.SkipSpace(data, 0); i < len(data); i = jsonscan.SkipSpace(data, i) {
		if data[i] != '{' {
			return nil, false
		}
		m, end, err := metaKeysAt(data, i)
		if err != nil {
			return nil, false
		}
		names, i = addPackageName(names, m), end
	}
	return names, true
}

// addPackageName adds the package a blob belongs to (its name for an
// olm.package blob) to names, once.
func addPackageName(names []string, m Meta) []string {
	name := m.Package
	if m.Schema == SchemaPackage {
		name = m.Name
	}
	if !slices.Contains(names, name) {
		names = append(names, name)
	}
	return names
}
