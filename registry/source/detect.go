package source

import (
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/outdir"
	"github.com/operator-catalog/olmcat/internal/sqlitefile"
)

// Kind is the kind of catalog a reference names. The values are the words
// reports and logs print.
type Kind string

// The kinds Detect tells apart. A new input kind (a catalog image, say)
// is one more constant here plus its case in Detect and in the callers'
// switches: every command goes through Detect.
const (
	// KindSQLite is a legacy sqlite index database file.
	KindSQLite Kind = "sqlite"
	// KindDeclcfg is a declarative config (file-based catalog) directory.
	KindDeclcfg Kind = "declcfg"
	// KindDeclcfgFile is a regular file that is not a sqlite database: a
	// single declarative config blob stream (JSON or YAML).
	KindDeclcfgFile Kind = "declcfg-file"
	// KindGRPC is a live registry server, grpc://host:port.
	KindGRPC Kind = "grpc"
	// KindImage is a container image reference (a catalog or bundle
	// image, see image.Classify). Detect does not contact the registry:
	// callers pull it with package image and detect the extracted path.
	KindImage Kind = "image"
)

// GRPCScheme prefixes a reference to a live server: grpc://host:port.
const GRPCScheme = "grpc://"

// Input is a detected catalog reference.
type Input struct {
	// Ref is the reference as given.
	Ref string
	// Kind is what Ref names.
	Kind Kind
	// Addr is host:port for KindGRPC, empty otherwise.
	Addr string
	// Info describes the local file or directory; nil for KindGRPC and
	// KindImage.
	Info fs.FileInfo
	// Image is the reference to pull for KindImage (Ref without any
	// docker:// prefix).
	Image string
	// Note explains the choice when Ref reads as both a local path and an
	// image reference (the path wins); callers print it.
	Note string
	// Finished says, one sentence each, what Detect finished of a write
	// of Ref that a killed run had committed (outdir.FinishForRead), so
	// that Ref is read whole; callers print them.
	Finished []string
}

// Detect tells what kind of catalog ref names without loading it:
// grpc://host:port is a live server (not dialled), a directory is a
// declarative config, a regular file starting with the sqlite 3 header is
// a legacy index and any other regular file a declarative config blob
// stream, and a missing path that names a registry (host.tld/repo:tag,
// localhost:5000/repo, or anything prefixed docker://) an image. The path is stat'ed once and only a regular file is opened (to
// read its header). Anything else (missing, a device, an empty grpc
// address) is an error naming ref.
func Detect(ref string) (Input, error) {
	if addr, ok := strings.CutPrefix(ref, GRPCScheme); ok {
		if addr == "" {
			return Input{}, fmt.Errorf("%s: missing host:port after %s", ref, GRPCScheme)
		}
		return Input{Ref: ref, Kind: KindGRPC, Addr: addr}, nil
	}
	cls, err := image.Classify(ref)
	if err != nil {
		return Input{}, err
	}
	if cls.IsImage() {
		return Input{Ref: ref, Kind: KindImage, Image: strings.TrimPrefix(ref, image.ImagePrefix)}, nil
	}
	// A write of ref killed after its commit record leaves ref half
	// replaced (or missing): finished, or refused, before ref is read.
	swept, err := outdir.FinishForRead(ref)
	if err != nil {
		return Input{}, err
	}
	st, err := os.Stat(ref)
	if err != nil {
		return Input{}, err
	}
	in := Input{Ref: ref, Info: st, Note: cls.Note}
	for _, s := range swept {
		in.Finished = append(in.Finished, s.String())
	}
	switch {
	case st.IsDir():
		in.Kind = KindDeclcfg
		return in, nil
	case !st.Mode().IsRegular():
		// Not opened: opening a named pipe would block.
		return Input{}, fmt.Errorf("%s: not a directory or regular file", ref)
	}
	f, err := os.Open(ref)
	if err != nil {
		return Input{}, err
	}
	defer f.Close()
	in.Kind = KindDeclcfgFile
	if sqlitefile.HasHeader(f) {
		in.Kind = KindSQLite
	}
	return in, nil
}
