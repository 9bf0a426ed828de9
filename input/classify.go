package input

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/outdir"
	"github.com/operator-catalog/olmcat/internal/sqlitefile"
)

// GRPCScheme prefixes a reference to a live server: grpc://host:port.
const GRPCScheme = "grpc://"

// Classify tells what ref names without loading or pulling it:
// grpc://host:port is a live server (not dialled); an http:// or https://
// URL is a catalog served over catalogd's HTTP API (not fetched; Addr is
// the URL without a trailing slash); an image reference
// (docker://REF, oci:DIR[:REF], oci-archive:FILE[:REF], or a missing path
// that names a registry: see readReference) is KindImage; a directory is a
// declarative config; a regular file starting with the sqlite 3 header is
// a legacy index and any other regular file a declarative config blob
// stream. A local path is stat'ed once and only a regular file is opened
// (to read its header); a write of it a killed run had committed is
// finished first (Finished). Anything else (missing, a device, an empty
// grpc address) is an error naming ref.
//
// Callers that decide before pulling (unpack locks its output first) use
// it; the others call Resolve.
func Classify(ref string) (*Input, error) {
	if addr, ok := strings.CutPrefix(ref, GRPCScheme); ok {
		if addr == "" {
			return nil, fmt.Errorf("%s: missing host:port after %s", ref, GRPCScheme)
		}
		return &Input{Ref: ref, Kind: KindGRPC, Path: ref, Addr: addr}, nil
	}
	if lower := strings.ToLower(ref); strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://") {
		u, err := url.Parse(ref)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("%s: not a catalogd base URL (http(s)://host[:port]/catalogs/<name>)", ref)
		}
		return &Input{Ref: ref, Kind: KindCatalogd, Path: ref, Addr: strings.TrimRight(ref, "/")}, nil
	}
	r, note, err := readReference(ref)
	if err != nil {
		return nil, err
	}
	if r.isImage() {
		return &Input{Ref: ref, Kind: KindImage, Image: strings.TrimPrefix(ref, image.ImagePrefix), ref: r}, nil
	}
	in, err := classifyLocal(ref)
	if err != nil {
		return nil, err
	}
	in.Note = note
	return in, nil
}

// classifyLocal tells the kind of the local file or directory path.
func classifyLocal(path string) (*Input, error) {
	// A write of path killed after its commit record leaves it half
	// replaced (or missing): finished, or refused, before it is read.
	swept, err := outdir.FinishForRead(path)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	in := &Input{Ref: path, Path: path}
	for _, s := range swept {
		in.Finished = append(in.Finished, s.String())
	}
	switch {
	case st.IsDir():
		in.Kind = KindDeclcfg
		return in, nil
	case !st.Mode().IsRegular():
		// Not opened: opening a named pipe would block.
		return nil, fmt.Errorf("%s: not a directory or regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	in.Kind = KindDeclcfgFile
	if sqlitefile.HasHeader(f) {
		in.Kind = KindSQLite
	}
	return in, nil
}

// isBundleDir says whether dir holds a bundle: manifests/ and metadata/
// directories.
func isBundleDir(dir string) bool {
	for _, sub := range []string{"manifests", "metadata"} {
		if st, err := os.Stat(filepath.Join(dir, sub)); err != nil || !st.IsDir() {
			return false
		}
	}
	return true
}

// DirName is the folder name the catalog of an image input (KindImage,
// or an input pulled from an image) is unpacked to by default: the last
// component of its repository, then its tag or the first 12 hex digits of
// its digest (index:v4.14 -> index-v4.14); for a layout, its file name
// without extension, then the tag of the name given in it, or "catalog".
// It is empty for local inputs.
func (in *Input) DirName() string {
	if in == nil || !in.ref.isImage() {
		return ""
	}
	return in.ref.dirName()
}

// ImageDirName is DirName for ref when ref is an image reference, without
// looking further at a local path of that name (as Classify would); false
// when ref is no image reference.
func ImageDirName(ref string) (string, bool) {
	r, _, err := readReference(ref)
	if err != nil || !r.isImage() {
		return "", false
	}
	return r.dirName(), true
}
