package declcfgquery

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"

	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/operator-catalog/olmcat/registry/api"
)

// The cache snapshot is the prepared api messages, written after a build
// so the next Load of the same catalog skips loading, validating and
// converting:
//
//	magic "olmcat-declcfgquery-cache\n" + format version byte
//	key: 32 bytes (catalogKey of the catalog directory)
//	uvarint package count, then that many size-delimited api.Package
//	uvarint bundle count, then that many size-delimited api.Bundle
//	CRC-32C (Castagnoli) of every byte above, 4 bytes big-endian
//
// A snapshot is used only when its key matches the catalog on disk and
// its checksum and contents verify; anything else is rebuilt.
const (
	cacheMagic = "olmcat-declcfgquery-cache\n"
	// cacheVersion is part of the key: bump it whenever the snapshot
	// layout or what New derives from the model changes, so snapshots
	// written by an older olmcat are rebuilt rather than served.
	cacheVersion = 1
	// cacheFile is the snapshot's name inside the cache directory.
	cacheFile = "declcfgquery.snapshot"
)

// castagnoli checksums snapshots: it detects damage (not tampering; the
// cache directory is the operator's own) at memory speed.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errCacheMiss means the snapshot is absent or for other catalog content.
var errCacheMiss = errors.New("no snapshot for this catalog content")

// catalogKey digests the catalog directory: every regular file's
// slash-separated relative path, size, modification time and content
// hash, in path order, plus the snapshot format version. skip (the cache
// directory, when it lies inside the catalog) is left out.
func catalogKey(dir, skip string) ([32]byte, error) {
	type file struct {
		rel  string
		path string
		info fs.FileInfo
	}
	var files []file
	absSkip := ""
	if skip != "" {
		if a, err := filepath.Abs(skip); err == nil {
			absSkip = a
		}
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if absSkip != "" {
				if a, err := filepath.Abs(path); err == nil && a == absSkip {
					return filepath.SkipDir
				}
			}
			return nil
		}
		info, err := os.Stat(path) // follow symlinks to what the loader reads
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		files = append(files, file{rel: filepath.ToSlash(rel), path: path, info: info})
		return nil
	})
	if err != nil {
		return [32]byte{}, fmt.Errorf("digest catalog %s: %w", dir, err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].rel < files[j].rel })
	// Hash contents in parallel: on a warm start this is most of the work.
	sums := make([][]byte, len(files))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, f := range files {
		g.Go(func() error {
			h := sha256.New()
			if err := hashFile(h, f.path); err != nil {
				return err
			}
			sums[i] = h.Sum(nil)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return [32]byte{}, err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s%d\n", cacheMagic, cacheVersion)
	for i, f := range files {
		fmt.Fprintf(h, "%q %d %d %x\n", f.rel, f.info.Size(), f.info.ModTime().UnixNano(), sums[i])
	}
	var key [32]byte
	copy(key[:], h.Sum(nil))
	return key, nil
}

func hashFile(h hash.Hash, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("digest catalog: %w", err)
	}
	defer f.Close()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("digest catalog: read %s: %w", path, err)
	}
	return nil
}

// writeCache writes q's snapshot for key into dir, atomically: a reader
// sees the old snapshot or the complete new one, never a partial file.
func writeCache(dir string, key [32]byte, q *Querier) (err error) {
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
	bw := bufio.NewWriterSize(io.MultiWriter(tmp, sum), 1<<20)
	bw.WriteString(cacheMagic)
	bw.WriteByte(cacheVersion)
	bw.Write(key[:])
	pkgs := q.packageList()
	writeUvarint(bw, uint64(len(pkgs)))
	for _, p := range pkgs {
		if _, err := protodelim.MarshalTo(bw, p); err != nil {
			return fmt.Errorf("write cache: package %q: %w", p.Name, err)
		}
	}
	writeUvarint(bw, uint64(len(q.bundles)))
	for _, b := range q.bundles {
		if _, err := protodelim.MarshalTo(bw, b); err != nil {
			return fmt.Errorf("write cache: bundle %q: %w", b.CsvName, err)
		}
	}
	if err := bw.Flush(); err != nil {
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

func writeUvarint(w *bufio.Writer, v uint64) {
	var buf [binary.MaxVarintLen64]byte
	w.Write(buf[:binary.PutUvarint(buf[:], v)])
}

// hashingReader feeds everything read through it into a hash and counts
// it, so a record's offset in the file is known.
type hashingReader struct {
	r   *bufio.Reader
	h   hash.Hash
	off int64
}

func (hr *hashingReader) Read(p []byte) (int, error) {
	n, err := hr.r.Read(p)
	hr.h.Write(p[:n])
	hr.off += int64(n)
	return n, err
}

func (hr *hashingReader) ReadByte() (byte, error) {
	b, err := hr.r.ReadByte()
	if err == nil {
		hr.h.Write([]byte{b})
		hr.off++
	}
	return b, err
}

// readCache restores a Querier from dir's snapshot for key. It returns
// errCacheMiss when there is no snapshot for this content, and another
// error when the snapshot is damaged; either way the caller rebuilds.
//
// The restored Querier does not hold the bundles' manifests (csvJson and
// object, nearly all of a catalog's bytes): it keeps the verified
// snapshot open and reads a bundle's record again when an answer needs
// them, so memory stays proportional to the catalog's metadata. The
// snapshot is only ever replaced by rename, so the open file keeps the
// verified content.
func readCache(dir string, key [32]byte) (_ *Querier, err error) {
	f, err := os.Open(filepath.Join(dir, cacheFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errCacheMiss
	}
	if err != nil {
		return nil, fmt.Errorf("open cache: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	hr := &hashingReader{r: bufio.NewReaderSize(f, 1<<20), h: crc32.New(castagnoli)}
	head := make([]byte, len(cacheMagic)+1+len(key))
	if _, err := io.ReadFull(hr, head); err != nil {
		return nil, fmt.Errorf("read cache header: %w", err)
	}
	if !strings.HasPrefix(string(head), cacheMagic) || head[len(cacheMagic)] != cacheVersion {
		return nil, errors.New("cache file has an unknown format")
	}
	if !bytes.Equal(head[len(cacheMagic)+1:], key[:]) {
		return nil, errCacheMiss
	}
	opts := protodelim.UnmarshalOptions{MaxSize: -1}
	n, err := binary.ReadUvarint(hr)
	if err != nil {
		return nil, fmt.Errorf("read cache: %w", err)
	}
	pkgs := make([]*api.Package, 0, min(n, 1<<16))
	for i := uint64(0); i < n; i++ {
		p := &api.Package{}
		if err := opts.UnmarshalFrom(hr, p); err != nil {
			return nil, fmt.Errorf("read cache: package %d: %w", i, err)
		}
		pkgs = append(pkgs, p)
	}
	if n, err = binary.ReadUvarint(hr); err != nil {
		return nil, fmt.Errorf("read cache: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read cache: %w", err)
	}
	bundles, records, err := readCacheBundles(hr, n, st.Size())
	if err != nil {
		return nil, err
	}
	want := hr.h.Sum(nil)
	got := make([]byte, len(want))
	if _, err := io.ReadFull(hr.r, got); err != nil {
		return nil, fmt.Errorf("read cache checksum: %w", err)
	}
	if !bytes.Equal(got, want) {
		return nil, errors.New("cache checksum mismatch")
	}
	if _, err := hr.r.ReadByte(); err != io.EOF {
		return nil, errors.New("cache file has trailing data")
	}
	q, err := build(pkgs, bundles)
	if err != nil {
		return nil, fmt.Errorf("cache contents: %w", err)
	}
	q.snapshot = &snapshot{f: f, records: records}
	return q, nil
}

// withoutManifests appends to dst the fields of the encoded api.Bundle
// msg other than csvJson and object, and reports whether it had either.
func withoutManifests(dst, msg []byte) ([]byte, bool, error) {
	had := false
	for len(msg) > 0 {
		num, typ, n := protowire.ConsumeTag(msg)
		if n < 0 {
			return dst, false, protowire.ParseError(n)
		}
		m := protowire.ConsumeFieldValue(num, typ, msg[n:])
		if m < 0 {
			return dst, false, protowire.ParseError(m)
		}
		if num == csvJSONField || num == objectField {
			had = true
		} else {
			dst = append(dst, msg[:n+m]...)
		}
		msg = msg[n+m:]
	}
	return dst, had, nil
}

// The api.Bundle field numbers of the manifests (registry.proto).
const (
	csvJSONField protowire.Number = 4
	objectField  protowire.Number = 5
)

// snapshot is a verified cache file a Querier reads manifests from.
type snapshot struct {
	f *os.File
	// records locates, for every bundle message whose manifests were
	// dropped, its size-delimited record in f.
	records map[*api.Bundle]record
}

// record is a size-delimited message's place in the snapshot.
type record struct{ off, n int64 }

// manifests returns b's csvJson and object: b's own when it holds them,
// else read back from the snapshot record b was restored from.
func (q *Querier) manifests(b *api.Bundle) (string, []string, error) {
	if q.files != nil {
		return q.files.manifests(b)
	}
	if q.snapshot == nil {
		return b.CsvJson, b.Object, nil
	}
	r, ok := q.snapshot.records[b]
	if !ok {
		return b.CsvJson, b.Object, nil
	}
	buf := make([]byte, r.n)
	if _, err := q.snapshot.f.ReadAt(buf, r.off); err != nil {
		return "", nil, fmt.Errorf("read manifests of bundle %q from cache %s: %w", b.CsvName, q.snapshot.f.Name(), err)
	}
	size, k := binary.Uvarint(buf)
	if k <= 0 || uint64(len(buf)-k) != size {
		return "", nil, fmt.Errorf("read manifests of bundle %q from cache %s: bad record length", b.CsvName, q.snapshot.f.Name())
	}
	m := &api.Bundle{}
	if err := proto.Unmarshal(buf[k:], m); err != nil {
		return "", nil, fmt.Errorf("read manifests of bundle %q from cache %s: %w", b.CsvName, q.snapshot.f.Name(), err)
	}
	if m.CsvName != b.CsvName || m.PackageName != b.PackageName || m.ChannelName != b.ChannelName {
		return "", nil, fmt.Errorf("read manifests of bundle %q from cache %s: record holds bundle %q", b.CsvName, q.snapshot.f.Name(), m.CsvName)
	}
	for _, o := range m.Object {
		if o == m.CsvJson {
			m.CsvJson = o // hold the CSV's text once
			break
		}
	}
	return m.CsvJson, m.Object, nil
}

// sharer restores the sharing New sets up between a bundle's channel
// memberships (decoding gives every message its own copy), so a restored
// Querier holds each bundle's manifests and properties once.
type sharer struct {
	seen map[[2]string]*api.Bundle
}

func newSharer() *sharer { return &sharer{seen: map[[2]string]*api.Bundle{}} }

func (s *sharer) dedupe(b *api.Bundle) {
	for _, o := range b.Object {
		if o == b.CsvJson {
			b.CsvJson = o
			break
		}
	}
	k := [2]string{b.PackageName, b.CsvName}
	prev, ok := s.seen[k]
	if !ok {
		s.seen[k] = b
		return
	}
	if prev.CsvJson == b.CsvJson {
		b.CsvJson = prev.CsvJson
	}
	if slices.Equal(prev.Object, b.Object) {
		b.Object = prev.Object
	}
	if messagesEqual(prev.Properties, b.Properties) {
		b.Properties = prev.Properties
	}
	if messagesEqual(prev.Dependencies, b.Dependencies) {
		b.Dependencies = prev.Dependencies
	}
	if messagesEqual(prev.ProvidedApis, b.ProvidedApis) {
		b.ProvidedApis = prev.ProvidedApis
	}
	if messagesEqual(prev.RequiredApis, b.RequiredApis) {
		b.RequiredApis = prev.RequiredApis
	}
}

func messagesEqual[M proto.Message](a, b []M) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !proto.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// keyString renders a catalog key for logs.
func keyString(k [32]byte) string { return hex.EncodeToString(k[:8]) }

// readCacheBundles reads the n bundle records that follow the packages in
// a snapshot of fileSize bytes. A bundle is decoded without its manifests,
// which stay in the file; records says where each bundle that has some
// is, for Querier.manifests.
func readCacheBundles(hr *hashingReader, n uint64, fileSize int64) ([]*api.Bundle, map[*api.Bundle]record, error) {
	bundles := make([]*api.Bundle, 0, min(n, 1<<20))
	records := map[*api.Bundle]record{}
	share := newSharer()
	var buf, kept []byte
	for i := uint64(0); i < n; i++ {
		start := hr.off
		size, err := binary.ReadUvarint(hr)
		if err != nil {
			return nil, nil, fmt.Errorf("read cache: bundle %d: %w", i, err)
		}
		if size > uint64(fileSize-hr.off) {
			return nil, nil, fmt.Errorf("read cache: bundle %d: record of %d bytes overruns the file", i, size)
		}
		buf = slices.Grow(buf[:0], int(size))[:size]
		if _, err := io.ReadFull(hr, buf); err != nil {
			return nil, nil, fmt.Errorf("read cache: bundle %d: %w", i, err)
		}
		// Decode all but the manifests: they stay in the file until an
		// answer needs them (Querier.manifests).
		var hasManifests bool
		if kept, hasManifests, err = withoutManifests(kept[:0], buf); err != nil {
			return nil, nil, fmt.Errorf("read cache: bundle %d: %w", i, err)
		}
		b := &api.Bundle{}
		if err := proto.Unmarshal(kept, b); err != nil {
			return nil, nil, fmt.Errorf("read cache: bundle %d: %w", i, err)
		}
		if hasManifests {
			records[b] = record{off: start, n: hr.off - start}
		}
		share.dedupe(b)
		bundles = append(bundles, b)
	}
	return bundles, records, nil
}
