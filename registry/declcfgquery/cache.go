package declcfgquery

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The cache snapshot is the Querier's index, written after a build so
// the next Load of the same catalog skips loading, validating and
// converting. It holds no manifests: those stay in the catalog files,
// which the key proves unchanged, and are read per call as without a
// cache.
//
//	magic "olmcat-declcfgquery-cache\n" + format version byte
//	key: 32 bytes (catalogKey of the catalog directory)
//	body: the index (snapshot, encoded with encoding/gob)
//	CRC-32C (Castagnoli) of every byte above, 4 bytes big-endian
//
// A snapshot is used only when its key matches the catalog on disk and
// its checksum and contents verify; anything else is rebuilt.
const (
	cacheMagic = "olmcat-declcfgquery-cache\n"
	// cacheVersion is part of the key: bump it whenever the snapshot
	// layout or what the index derives from the catalog changes, so
	// snapshots written by an older olmcat are rebuilt rather than served.
	cacheVersion = 10
	// cacheFile is the snapshot's name inside the cache directory.
	cacheFile = "declcfgquery.snapshot"
)

// castagnoli checksums snapshots: it detects damage (not tampering; the
// cache directory is the operator's own) at memory speed.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errCacheMiss means the snapshot is absent or for other catalog content.
var errCacheMiss = errors.New("no snapshot for this catalog content")

// writeCache writes q's snapshot for key into dir, atomically: a reader
// sees the old snapshot or the complete new one, never a partial file.
// q must read its manifests from the catalog files.
func writeCache(dir string, key [32]byte, q *Querier) (err error) {
	src, ok := q.src.(*fileSource)
	if !ok {
		return errors.New("write cache: the catalog is not served from its files")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create cache dir: %w", err)
	}
	tmp, err := os.CreateTemp(dir, cacheFile+".tmp-*")
	if err != nil {
		return fmt.Errorf("create cache file: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	sum := crc32.New(castagnoli)
	w := bufio.NewWriterSize(io.MultiWriter(tmp, sum), 1<<20)
	w.WriteString(cacheMagic)
	w.WriteByte(cacheVersion)
	w.Write(key[:])
	if err := writeSnapshot(w, q, src); err != nil {
		return fmt.Errorf("write cache: %w", err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write cache: %w", err)
	}
	if _, err := tmp.Write(sum.Sum(nil)); err != nil {
		return fmt.Errorf("write cache: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, cacheFile)); err != nil {
		return fmt.Errorf("install cache file: %w", err)
	}
	return nil
}

// readCache restores a Querier for the catalog directory catalog from
// dir's snapshot for key. It returns errCacheMiss when there is no
// snapshot for this content, and another error when the snapshot is
// damaged; either way the caller rebuilds. The restored Querier reads
// manifests from the catalog files, as one built from them does.
func readCache(dir string, key [32]byte, catalog string) (*Querier, error) {
	data, err := os.ReadFile(filepath.Join(dir, cacheFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %w", errCacheMiss, err)
	}
	if err != nil {
		return nil, fmt.Errorf("open cache: %w", err)
	}
	head := len(cacheMagic) + 1 + len(key)
	if len(data) < head+4 || !strings.HasPrefix(string(data[:len(cacheMagic)]), cacheMagic) || data[len(cacheMagic)] != cacheVersion {
		return nil, errors.New("cache file has an unknown format")
	}
	if !bytes.Equal(data[len(cacheMagic)+1:head], key[:]) {
		return nil, errCacheMiss
	}
	body, sum := data[:len(data)-4], data[len(data)-4:]
	if crc32.Checksum(body, castagnoli) != binary.BigEndian.Uint32(sum) {
		return nil, errors.New("cache checksum mismatch")
	}
	r := bytes.NewReader(body[head:])
	ib, src, err := readSnapshot(r, catalog)
	if err == nil && r.Len() != 0 {
		err = errors.New("trailing data after the index")
	}
	if err != nil {
		return nil, fmt.Errorf("read cache: %w", err)
	}
	q, err := ib.finish(src)
	if err != nil {
		return nil, fmt.Errorf("cache contents: %w", err)
	}
	return q, nil
}
