package declcfgquery

import (
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/operator-catalog/olmcat/registry/api"
)

// snapshot is the cache body, encoded with encoding/gob: the Querier's
// index as it holds it (the records are saved as they are, so a field
// added to one is saved and restored with it; bump cacheVersion) and
// where its blobs are. The string table is restored as written, and the
// records in index order, so restoring interns and sorts nothing new.
type snapshot struct {
	Files    []snapshotFile
	Packages [][]byte  // each api.Package, deterministic protobuf
	PkgRefs  []blobRef // by package, where its blob is
	Strings  []string  // the string table after "" (number 0)
	APIs     []apiRec
	Deps     []depRec
	Props    []propRec
	Nums     []int32 // the bundles' property numbers
	Bundles  []bundleRec
	Refs     []blobRef // by bundle, where its blob is
	Members  []memberRec
	Skips    []int32
}

// snapshotFile is a file of the catalog and its stamp when loaded.
type snapshotFile struct {
	Path string
	Size int64
	Mod  int64 // Unix ns
}

// writeSnapshot encodes q's index and where its blobs are to w.
func writeSnapshot(w io.Writer, q *Querier, src *fileSource) error {
	s := &snapshot{APIs: q.apis, Deps: q.deps, Props: q.props, Nums: q.nums, Bundles: q.bundles, Refs: src.refs,
		Members: q.members, Skips: q.skips}
	for i, f := range src.files {
		s.Files = append(s.Files, snapshotFile{Path: f, Size: src.stamps[i].size, Mod: src.stamps[i].mod.UnixNano()})
	}
	for _, p := range q.packageList() {
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(p)
		if err != nil {
			return fmt.Errorf("package %q: %w", p.Name, err)
		}
		s.Packages = append(s.Packages, b)
		s.PkgRefs = append(s.PkgRefs, src.pkgRefs[p.Name])
	}
	for n := 1; n < q.strs.len(); n++ {
		s.Strings = append(s.Strings, q.str(int32(n)))
	}
	return gob.NewEncoder(w).Encode(s)
}

// readSnapshot decodes a snapshot body into an index builder (finish
// indexes and checks it) and the file source the restored Querier reads
// from.
func readSnapshot(r io.Reader, catalog string) (*indexBuilder, *fileSource, error) {
	var s snapshot
	if err := gob.NewDecoder(r).Decode(&s); err != nil {
		return nil, nil, err
	}
	if err := s.check(); err != nil {
		return nil, nil, err
	}
	src := newFileSource(catalog)
	for i, f := range s.Files {
		src.fileNo[f.Path] = int32(i)
		src.files = append(src.files, f.Path)
		src.stamps = append(src.stamps, fileStamp{size: f.Size, mod: time.Unix(0, f.Mod)})
	}
	ib := newIndexBuilder()
	for i, b := range s.Packages {
		p := &api.Package{}
		if err := proto.Unmarshal(b, p); err != nil {
			return nil, nil, fmt.Errorf("package: %w", err)
		}
		src.pkgRefs[p.Name] = s.PkgRefs[i]
		ib.pkgs = append(ib.pkgs, p)
	}
	q := ib.q
	for _, str := range s.Strings {
		q.strs.appendRaw(str)
	}
	q.apis, q.deps, q.props, q.nums, q.bundles, q.members, q.skips = s.APIs, s.Deps, s.Props, s.Nums, s.Bundles, s.Members, s.Skips
	src.refs = s.Refs
	return ib, src, nil
}

// errSnapshotNumbers means a record names a string, record or file the
// snapshot does not hold.
var errSnapshotNumbers = errors.New("snapshot record out of range")

// check refuses a snapshot whose numbers point outside it: a restored
// index must never index out of its tables.
func (s *snapshot) check() error {
	ns := int32(len(s.Strings) + 1)
	ok := len(s.PkgRefs) == len(s.Packages) && len(s.Refs) == len(s.Bundles) && refsIn(s.Files, s.PkgRefs) &&
		refsIn(s.Files, s.Refs) && in(ns, s.Skips...) && in(int32(len(s.Props)), s.Nums...)
	for _, a := range s.APIs {
		ok = ok && in(ns, a.Group, a.Version, a.Kind)
	}
	for _, d := range s.Deps {
		ok = ok && in(ns, d.Type, d.Value)
	}
	for _, p := range s.Props {
		ok = ok && in(ns, p.Type) && in(ns+1, p.Value+1) && in(int32(len(s.APIs)+1), p.API+1) &&
			in(int32(len(s.Deps)+1), p.Dep+1) && p.Role <= requiredAPI && (p.Role == noAPI) == (p.API < 0)
	}
	for _, b := range s.Bundles {
		ok = ok && in(ns, b.Pkg, b.Name, b.Version, b.BundleRepo, b.BundleRef) &&
			in(int32(len(s.Nums)+1), b.PropLo, b.PropHi) && b.PropLo <= b.PropHi
	}
	lo := int32(0)
	for _, m := range s.Members {
		ok = ok && in(int32(len(s.Bundles)), m.Bundle) && in(ns, m.Channel, m.Replaces, m.SkipRange, m.Deprecation) &&
			m.SkipLo >= lo && m.SkipLo <= int32(len(s.Skips))
		lo = m.SkipLo
	}
	if !ok {
		return errSnapshotNumbers
	}
	return nil
}

// in reports whether every number is in [0, limit).
func in(limit int32, nums ...int32) bool {
	for _, n := range nums {
		if n < 0 || n >= limit {
			return false
		}
	}
	return true
}

// refsIn reports whether every blob is in one of files, its byte range
// (if any) inside the file as stamped: a served blob is read by its range
// alone, and a corrupt range must not size a read beyond its file.
func refsIn(files []snapshotFile, refs []blobRef) bool {
	for _, r := range refs {
		if !in(int32(len(files)), r.File) || r.Index < 0 || int64(r.Off)+int64(r.Len) > files[r.File].Size {
			return false
		}
	}
	return true
}
