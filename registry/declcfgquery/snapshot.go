package declcfgquery

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/operator-catalog/olmcat/registry/api"
)

// The snapshot body, every count and number an unsigned varint, every
// string and byte string length-prefixed:
//
//	files:    count, then path, size, modification time (Unix ns)
//	packages: count, then the encoded api.Package and its blob (file, index)
//	strings:  count, then every string of the table after "" (number 0)
//	apis:     count, then group, version, kind (string numbers)
//	deps:     count, then type, value (string numbers)
//	props:    count, then type, value+1 (string numbers), role, api+1,
//	          dep+1
//	nums:     count, then the bundles' property numbers
//	bundles:  count, then package, name, version, image repository,
//	          image tag or digest (string numbers), its props (start and end in nums), blob (file,
//	          index)
//	members:  count, then bundle, and channel, replaces, skipRange,
//	          deprecation, skips (count, then each) as string numbers
//
// The string table is restored as written, and members are written in
// index order, so restoring interns and sorts nothing new.

// snapshotWriter writes the snapshot body.
type snapshotWriter struct {
	w   *bufio.Writer
	buf [binary.MaxVarintLen64]byte
}

func (w *snapshotWriter) uvarint(v uint64) { w.w.Write(binary.AppendUvarint(w.buf[:0], v)) }

func (w *snapshotWriter) str(s string) {
	w.uvarint(uint64(len(s)))
	w.w.WriteString(s)
}

func (w *snapshotWriter) ref(r blobRef) {
	w.uvarint(uint64(r.file))
	w.uvarint(uint64(r.index))
}

// index writes q's index and where its blobs are.
func (w *snapshotWriter) index(q *Querier, src *fileSource) error {
	w.uvarint(uint64(len(src.files)))
	for i, f := range src.files {
		w.str(f)
		w.uvarint(uint64(src.stamps[i].size))
		w.uvarint(uint64(src.stamps[i].mod.UnixNano()))
	}
	pkgs := q.packageList()
	w.uvarint(uint64(len(pkgs)))
	for _, p := range pkgs {
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(p)
		if err != nil {
			return fmt.Errorf("package %q: %w", p.Name, err)
		}
		w.str(string(b))
		w.ref(src.pkgRefs[p.Name])
	}
	w.uvarint(uint64(q.strs.len() - 1))
	for n := 1; n < q.strs.len(); n++ {
		w.str(q.str(int32(n)))
	}
	w.uvarint(uint64(len(q.apis)))
	for _, g := range q.apis {
		for _, n := range []int32{g.group, g.version, g.kind} {
			w.uvarint(uint64(n))
		}
	}
	w.uvarint(uint64(len(q.deps)))
	for _, d := range q.deps {
		w.uvarint(uint64(d.typ))
		w.uvarint(uint64(d.value))
	}
	w.uvarint(uint64(len(q.props)))
	for _, p := range q.props {
		for _, v := range []int32{p.typ, p.value + 1, int32(p.role), p.api + 1, p.dep + 1} {
			w.uvarint(uint64(v))
		}
	}
	w.uvarint(uint64(len(q.nums)))
	for _, n := range q.nums {
		w.uvarint(uint64(n))
	}
	w.uvarint(uint64(len(q.bundles)))
	for i := range q.bundles {
		b := &q.bundles[i]
		for _, n := range []int32{b.pkg, b.name, b.version, b.bundleRepo, b.bundleRef, b.propLo, b.propHi} {
			w.uvarint(uint64(n))
		}
		w.ref(src.refs[i])
	}
	w.uvarint(uint64(len(q.members)))
	for i := range q.members {
		m := &q.members[i]
		w.uvarint(uint64(m.bundle))
		for _, s := range []int32{m.channel, m.replaces, m.skipRange, m.deprecation} {
			w.uvarint(uint64(s))
		}
		skips := q.skipsOf(int32(i))
		w.uvarint(uint64(len(skips)))
		for _, s := range skips {
			w.uvarint(uint64(s))
		}
	}
	return nil
}

// errSnapshotShort means the body ends in the middle of a value.
var errSnapshotShort = errors.New("snapshot truncated or malformed")

// snapshotReader decodes a snapshot body held in memory. The first
// malformed value sets err; later reads return zero values.
type snapshotReader struct {
	b   []byte
	err error
}

func (r *snapshotReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errSnapshotShort
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a count of items each at least min bytes long, refusing
// one the rest of the body cannot hold.
func (r *snapshotReader) count(min int) int {
	n := r.uvarint()
	if n > uint64(len(r.b)/min) {
		r.err = errSnapshotShort
		return 0
	}
	return int(n)
}

// bytes is the next byte string; it aliases the body.
func (r *snapshotReader) bytes() []byte {
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.err = errSnapshotShort
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

// str is the next string.
func (r *snapshotReader) str() string { return string(r.bytes()) }

func (r *snapshotReader) int32(limit int) int32 {
	v := r.uvarint()
	if v >= uint64(limit) || v > math.MaxInt32 {
		r.err = errSnapshotShort
		return 0
	}
	return int32(v)
}

// numbers reads a count, then that many numbers below limit, appended
// to nums.
func (r *snapshotReader) numbers(nums []int32, limit int) []int32 {
	for range r.count(1) {
		nums = append(nums, r.int32(limit))
	}
	return nums
}

func (r *snapshotReader) ref(files int) blobRef {
	return blobRef{file: r.int32(files), index: r.int32(math.MaxInt32)}
}

// index decodes the body into an index builder (finish indexes and
// checks it) and the file source the restored Querier reads from.
func (r *snapshotReader) index(catalog string) (*indexBuilder, *fileSource, error) {
	src := newFileSource(catalog)
	nf := r.count(3)
	for range nf {
		f := r.str()
		size := r.uvarint()
		mod := r.uvarint()
		src.fileNo[f] = int32(len(src.files))
		src.files = append(src.files, f)
		src.stamps = append(src.stamps, fileStamp{size: int64(size), mod: time.Unix(0, int64(mod))})
	}
	ib := newIndexBuilder()
	for range r.count(3) {
		p := &api.Package{}
		if err := proto.Unmarshal(r.bytes(), p); err != nil && r.err == nil {
			r.err = fmt.Errorf("package: %w", err)
		}
		src.pkgRefs[p.Name] = r.ref(nf)
		ib.pkgs = append(ib.pkgs, p)
	}
	q := ib.q
	for range r.count(1) {
		q.strs.appendRaw(string(r.bytes()))
	}
	ns := q.strs.len()
	for range r.count(3) {
		q.apis = append(q.apis, apiRec{group: r.int32(ns), version: r.int32(ns), kind: r.int32(ns)})
	}
	for range r.count(2) {
		q.deps = append(q.deps, depRec{typ: r.int32(ns), value: r.int32(ns)})
	}
	for range r.count(5) {
		p := propRec{typ: r.int32(ns), value: r.int32(ns+1) - 1, role: apiRole(r.int32(int(requiredAPI) + 1)),
			api: r.int32(len(q.apis)+1) - 1, dep: r.int32(len(q.deps)+1) - 1}
		if (p.role == noAPI) != (p.api < 0) && r.err == nil {
			r.err = errors.New("property with an API role but no API, or the reverse")
		}
		q.props = append(q.props, p)
	}
	r.records(q, src, nf)
	if r.err == nil && len(r.b) != 0 {
		r.err = errors.New("trailing data after the index")
	}
	if r.err != nil {
		return nil, nil, r.err
	}
	return ib, src, nil
}

// records decodes the bundle and member records into q and where each
// bundle's blob is into src.
func (r *snapshotReader) records(q *Querier, src *fileSource, nf int) {
	ns := q.strs.len()
	q.nums = r.numbers(nil, len(q.props))
	nb := r.count(9)
	q.bundles = make([]bundleRec, 0, nb)
	src.refs = make([]blobRef, 0, nb)
	for range nb {
		b := bundleRec{pkg: r.int32(ns), name: r.int32(ns), version: r.int32(ns), bundleRepo: r.int32(ns), bundleRef: r.int32(ns)}
		b.propLo = r.int32(len(q.nums) + 1)
		if b.propHi = r.int32(len(q.nums) + 1); b.propHi < b.propLo && r.err == nil {
			r.err = errors.New("bundle properties out of order")
		}
		q.bundles = append(q.bundles, b)
		src.refs = append(src.refs, r.ref(nf))
	}
	nm := r.count(6)
	q.members = make([]memberRec, 0, nm)
	for range nm {
		m := memberRec{bundle: r.int32(nb), channel: r.int32(ns), replaces: r.int32(ns), skipRange: r.int32(ns),
			deprecation: r.int32(ns), skipLo: int32(len(q.skips))}
		q.skips = r.numbers(q.skips, ns)
		q.members = append(q.members, m)
	}
}
