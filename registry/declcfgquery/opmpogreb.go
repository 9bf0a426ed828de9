package declcfgquery

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/registry/api"
)

// opm v1.73's default serve cache, the one opm serve --cache-dir writes into an
// empty directory (an opm-built image's /tmp/cache): a pogreb database in
// pogreb.v1/db beside pogreb.v1/digest. The database's values are
// "packages.json" (the package index as in the JSON cache),
// "bundles/<pkg>/<channel>/<bundle>" (each membership's api.Bundle,
// protobuf) and "metas/<schema>/<pkg>" (other schemas' blobs). olmcat reads
// its data log directly and never writes it: segment files
// <id>-<sequence>.psg, read in sequence order, each a 512-byte header
// (pogrebSignature) then records
//
//	key size uint16 LE | value size uint32 LE (top bit: a delete) | key | value | CRC-32 (IEEE) LE of all before
//
// where a later record of a key replaces or deletes an earlier one.
const (
	pogrebHeaderSize = 512
	pogrebSegmentExt = ".psg"
)

var pogrebSignature = []byte{'p', 'o', 'g', 'r', 'e', 'b', 0x0e, 0xfd}

// pogrebRef is where a live value is: segment file, offset and size.
type pogrebRef struct {
	file int
	off  int64
	size uint32
}

// pogrebDB is the live keys of a pogreb data log and where their values are.
type pogrebDB struct {
	files []string
	refs  map[string]pogrebRef
}

// openPogreb reads the data log in dir: every record is checked against
// its CRC; a damaged or truncated segment is an error.
func openPogreb(dir string) (*pogrebDB, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	type segment struct {
		name string
		seq  uint64
	}
	var segs []segment
	for _, e := range entries {
		name := e.Name()
		if filepath.Ext(name) != pogrebSegmentExt {
			continue
		}
		_, seqStr, ok := strings.Cut(strings.TrimSuffix(name, pogrebSegmentExt), "-")
		seq, err := strconv.ParseUint(seqStr, 10, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("segment %s: not named <id>-<sequence>%s", name, pogrebSegmentExt)
		}
		segs = append(segs, segment{name, seq})
	}
	sort.Slice(segs, func(i, j int) bool { return segs[i].seq < segs[j].seq })
	db := &pogrebDB{refs: map[string]pogrebRef{}}
	for _, s := range segs {
		db.files = append(db.files, filepath.Join(dir, s.name))
		if err := db.readSegment(len(db.files) - 1); err != nil {
			return nil, fmt.Errorf("segment %s: %w", s.name, err)
		}
	}
	return db, nil
}

func (db *pogrebDB) readSegment(n int) error {
	f, err := os.Open(db.files[n])
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	head := make([]byte, pogrebHeaderSize)
	if _, err := io.ReadFull(r, head); err != nil || !bytes.Equal(head[:len(pogrebSignature)], pogrebSignature) {
		return errors.New("not a pogreb segment")
	}
	off := int64(pogrebHeaderSize)
	var sizes [6]byte
	for {
		if _, err := io.ReadFull(r, sizes[:]); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("record at %d: %w", off, err)
		}
		keySize := uint32(binary.LittleEndian.Uint16(sizes[:2]))
		valSize := binary.LittleEndian.Uint32(sizes[2:])
		del := valSize&(1<<31) != 0
		valSize &^= 1 << 31
		rec := make([]byte, keySize+valSize+4)
		if _, err := io.ReadFull(r, rec); err != nil {
			return fmt.Errorf("record at %d: %w", off, err)
		}
		sum := crc32.NewIEEE()
		sum.Write(sizes[:])
		sum.Write(rec[:keySize+valSize])
		if sum.Sum32() != binary.LittleEndian.Uint32(rec[keySize+valSize:]) {
			return fmt.Errorf("record at %d: checksum mismatch", off)
		}
		key := string(rec[:keySize])
		if del {
			delete(db.refs, key)
		} else {
			db.refs[key] = pogrebRef{file: n, off: off + 6 + int64(keySize), size: valSize}
		}
		off += 6 + int64(len(rec))
	}
}

// get reads key's value ("" and fs.ErrNotExist when it has none).
func (db *pogrebDB) get(key string) ([]byte, error) {
	ref, ok := db.refs[key]
	if !ok {
		return nil, fmt.Errorf("key %q: %w", key, fs.ErrNotExist)
	}
	f, err := os.Open(db.files[ref.file])
	if err != nil {
		return nil, err
	}
	defer f.Close()
	v := make([]byte, ref.size)
	if _, err := f.ReadAt(v, ref.off); err != nil {
		return nil, fmt.Errorf("key %q: %w", key, err)
	}
	return v, nil
}

// bundle reads a membership's record.
func (db *pogrebDB) bundle(pkg, channel, name string) (*api.Bundle, error) {
	v, err := db.get(fmt.Sprintf("bundles/%s/%s/%s", pkg, channel, name))
	if err != nil {
		return nil, err
	}
	var b api.Bundle
	if err := proto.Unmarshal(v, &b); err != nil {
		return nil, err
	}
	return &b, nil
}

// pogrebSource serves manifests from the record of each bundle's first
// membership.
type pogrebSource struct {
	db   *pogrebDB
	keys [][3]string // by bundle index
}

func (s *pogrebSource) manifests(_ *Querier, i int32) (string, []string, error) {
	if int(i) >= len(s.keys) {
		return "", nil, nil
	}
	k := s.keys[i]
	b, err := s.db.bundle(k[0], k[1], k[2])
	if err != nil {
		return "", nil, fmt.Errorf("read opm cache: %w", err)
	}
	return b.CsvJson, b.Object, nil
}

// opmPogrebDigest is the digest opm v1.73 records for its pogreb cache:
// FNV-1a 64 over the catalog's blobs, each as opm's loader holds it
// (decoded into a map and encoded again: keys sorted, no HTML escaping, a
// final newline), file by file in fs.WalkDir's order and in file order,
// then over every key of the database followed by its value, in key
// order. Every file but .indexignore counts (olmcat honours no ignore
// patterns here: a catalog with them does not match and is rebuilt).
func opmPogrebDigest(catalog string, db *pogrebDB) (string, error) {
	h := fnv.New64a()
	err := fs.WalkDir(os.DirFS(catalog), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == ".indexignore" {
			return err
		}
		f, err := os.Open(filepath.Join(catalog, filepath.FromSlash(p)))
		if err != nil {
			return err
		}
		defer f.Close()
		return declcfg.DecodeStream(f, func(blob json.RawMessage, _ int) error {
			var v map[string]any
			if err := json.Unmarshal(blob, &v); err != nil {
				return err
			}
			enc := json.NewEncoder(h)
			enc.SetEscapeHTML(false)
			return enc.Encode(v)
		})
	})
	if err != nil {
		return "", fmt.Errorf("digest catalog %s: %w", catalog, err)
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range db.refs {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range keys {
		v, err := db.get(k)
		if err != nil {
			return "", err
		}
		h.Write([]byte(k))
		h.Write(v)
	}
	return fmt.Sprintf("%x", h.Sum(nil)), nil
}

// restorePogrebCache builds the Querier from opm's pogreb cache in
// cacheDir when its digest describes the catalog directory dir.
func restorePogrebCache(dir, cacheDir string) (*Querier, string, error) {
	want, err := readOPMDigest(filepath.Join(cacheDir, opmPogrebDir, opmDigestFile))
	if err != nil {
		return nil, opmPogrebDir, fmt.Errorf("read opm cache digest: %w", err)
	}
	db, err := openPogreb(filepath.Join(cacheDir, opmPogrebDir, "db"))
	if err != nil {
		return nil, opmPogrebDir, fmt.Errorf("read opm cache: %w", err)
	}
	got, err := opmPogrebDigest(dir, db)
	if err != nil {
		return nil, opmPogrebDir, err
	}
	if want != got {
		return nil, opmPogrebDir, fmt.Errorf("%w: the cache reports digest %q, but the catalog and cache give %q", errCacheMiss, want, got)
	}
	data, err := db.get(opmPackagesFile)
	if err != nil {
		return nil, opmPogrebDir, fmt.Errorf("read opm cache: %w", err)
	}
	var pkgs map[string]opmPackage
	if err := json.Unmarshal(data, &pkgs); err != nil {
		return nil, opmPogrebDir, fmt.Errorf("read opm cache: %s: %w", opmPackagesFile, err)
	}
	src := &pogrebSource{db: db}
	q, err := fromOPMCache(pkgs, db, src, func(i int32, b *api.Bundle) {
		for int(i) >= len(src.keys) {
			src.keys = append(src.keys, [3]string{})
		}
		src.keys[i] = [3]string{b.PackageName, b.ChannelName, b.CsvName}
	})
	if err != nil {
		return nil, opmPogrebDir, fmt.Errorf("read opm cache %s: %w", cacheDir, err)
	}
	return q, opmPogrebDir, nil
}
