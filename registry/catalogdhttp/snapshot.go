package catalogdhttp

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"runtime"
	"sync"
	"time"
)

// Source hands every blob of a catalog to emit, in the order catalogd
// would serve them (its walk order), each as JSON; a blob is only valid
// until emit returns. DirSource is the source of a declarative config;
// the action layer builds the one of a legacy sqlite index.
type Source func(ctx context.Context, emit Emit) error

// Emit takes one blob of a Source, with where it is (its file and its
// position there), which the error of a blob that does not encode
// names. Its error stops the Source, which returns it.
type Emit func(blob []byte, file string, index int) error

// Snapshot is one load of the catalog as served: the encoded body in a
// file (catalogd's catalog.jsonl) and the offset index of its blobs by
// schema, package and name (catalogd's index.json), held in memory as
// offsets only. No body is held: /all is served from the file and
// /metas reads the indexed ranges.
type Snapshot struct {
	f       *os.File
	size    int64
	sum     [sha256.Size]byte
	etag    string
	modTime time.Time
	// offs[i] is where blob i starts; offs[len(offs)-1] is size.
	offs                        []int64
	bySchema, byPackage, byName map[string][]int32
	// users are the requests reading the file: it is closed and removed
	// once the snapshot is replaced and they are done.
	users sync.WaitGroup
}

// Build encodes every blob src gives (Encode) into a new file in dir and
// indexes it. The file is removed by Close, or with dir (a temporary
// directory the next run sweeps) if the process dies first.
func Build(ctx context.Context, dir string, src Source) (*Snapshot, error) {
	f, err := os.CreateTemp(dir, "catalog-*.jsonl")
	if err != nil {
		return nil, fmt.Errorf("create the served catalog file: %w", err)
	}
	s := &Snapshot{f: f, bySchema: map[string][]int32{}, byPackage: map[string][]int32{}, byName: map[string][]int32{}}
	h := sha256.New()
	bw := bufio.NewWriterSize(io.MultiWriter(f, h), 256<<10)
	err = encodeAll(ctx, src, runtime.GOMAXPROCS(0), func(line []byte, k Keys) error {
		s.add(k, int64(len(line)))
		_, err := bw.Write(line)
		return err
	})
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		s.remove()
		return nil, err
	}
	s.offs = append(s.offs, s.size)
	s.offs = s.offs[:len(s.offs):len(s.offs)]
	s.finish(h, time.Now())
	return s, nil
}

// add indexes the next blob, n bytes long. Blobs without a schema are in
// no index: no filtered query returns them, as in catalogd.
func (s *Snapshot) add(k Keys, n int64) {
	id := int32(len(s.offs))
	s.offs = append(s.offs, s.size)
	s.size += n
	if k.Schema == "" {
		return
	}
	s.bySchema[k.Schema] = append(s.bySchema[k.Schema], id)
	if k.Package != "" {
		s.byPackage[k.Package] = append(s.byPackage[k.Package], id)
	}
	if k.Name != "" {
		s.byName[k.Name] = append(s.byName[k.Name], id)
	}
}

// finish sets the validators of the built body.
func (s *Snapshot) finish(h hash.Hash, now time.Time) {
	h.Sum(s.sum[:0])
	s.etag = `"` + hex.EncodeToString(s.sum[:]) + `"`
	s.modTime = now.UTC().Truncate(time.Second)
}

// Size is the length of the served body (/all) in bytes.
func (s *Snapshot) Size() int64 { return s.size }

// Blobs is the number of blobs served.
func (s *Snapshot) Blobs() int { return len(s.offs) - 1 }

// ETag is the strong entity tag of /all: the quoted sha256 of its body.
func (s *Snapshot) ETag() string { return s.etag }

// ModTime is the body's Last-Modified time.
func (s *Snapshot) ModTime() time.Time { return s.modTime }

// Body reads the served body (/all) from the file; a reader per request,
// safe for concurrent use.
func (s *Snapshot) Body() *io.SectionReader { return io.NewSectionReader(s.f, 0, s.size) }

// Close closes and removes the file once the requests reading it are
// done.
func (s *Snapshot) Close() {
	s.users.Wait()
	s.remove()
}

func (s *Snapshot) remove() {
	s.f.Close()
	os.Remove(s.f.Name())
}

// Keys returns the schema, package and name of every blob, in served
// order. A blob without a schema is in no index, so its Keys are all
// empty, as /metas sees it.
func (s *Snapshot) Keys() []Keys {
	keys := make([]Keys, s.Blobs())
	for v, ids := range s.bySchema {
		for _, id := range ids {
			keys[id].Schema = v
		}
	}
	for v, ids := range s.byPackage {
		for _, id := range ids {
			keys[id].Package = v
		}
	}
	for v, ids := range s.byName {
		for _, id := range ids {
			keys[id].Name = v
		}
	}
	return keys
}

// Blob reads blob i (in served order, from 0) as served, newline
// included.
func (s *Snapshot) Blob(i int) ([]byte, error) {
	if i < 0 || i >= s.Blobs() {
		return nil, fmt.Errorf("blob %d: out of range (%d blobs)", i, s.Blobs())
	}
	b := make([]byte, s.offs[i+1]-s.offs[i])
	if _, err := s.f.ReadAt(b, s.offs[i]); err != nil {
		return nil, fmt.Errorf("read blob %d of the served catalog: %w", i, err)
	}
	return b, nil
}
