package image

import (
	"archive/tar"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// layerFile is one entry of a layer built here.
type layerFile struct {
	name     string // image path, no leading slash
	local    string // file to copy; "" for a directory
	link     string // for a hard link, the image path of its file
	mode     int64
	whiteout bool // an empty regular file (a whiteout marker)
}

// reproducibleLayer builds an OCI gzip layer whose bytes depend only on
// the entries' names, modes and contents: entries sorted by name (hard
// links after every file, as a tar reader needs a link's file first),
// every time set to mtime, owner root, no user or group names. The tar
// is written to a file in tmp (memory stays flat however big the
// catalog).
func reproducibleLayer(files []layerFile, mtime time.Time, tmp string) (v1.Layer, error) {
	sort.Slice(files, func(i, j int) bool {
		if a, b := files[i].link != "", files[j].link != ""; a != b {
			return b
		}
		return files[i].name < files[j].name
	})
	out, err := os.CreateTemp(tmp, "layer-*.tar")
	if err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	defer out.Close()
	tw := tar.NewWriter(out)
	for _, f := range files {
		if err := writeEntry(tw, f, mtime); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	if err := out.Close(); err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	return tarball.LayerFromFile(out.Name(), tarball.WithMediaType(types.OCILayer))
}

func writeEntry(tw *tar.Writer, f layerFile, mtime time.Time) error {
	hdr := &tar.Header{Name: f.name + "/", Mode: f.mode, ModTime: mtime, Format: tar.FormatPAX, Typeflag: tar.TypeDir}
	if f.whiteout {
		hdr.Name, hdr.Typeflag = f.name, tar.TypeReg
		return tw.WriteHeader(hdr)
	}
	if f.link != "" {
		hdr.Name, hdr.Typeflag, hdr.Linkname = f.name, tar.TypeLink, f.link
		return tw.WriteHeader(hdr)
	}
	if f.local == "" {
		return tw.WriteHeader(hdr)
	}
	in, err := os.Open(f.local)
	if err != nil {
		return fmt.Errorf("layer: %w", err)
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return fmt.Errorf("layer: %w", err)
	}
	hdr.Name, hdr.Typeflag, hdr.Size = f.name, tar.TypeReg, st.Size()
	if err := tw.WriteHeader(hdr); err != nil {
		return fmt.Errorf("layer %s: %w", f.name, err)
	}
	if _, err := io.Copy(tw, in); err != nil {
		return fmt.Errorf("layer %s: %w", f.name, err)
	}
	return nil
}

// treeFiles lists dir's directories and regular files as entries below
// the image path dest (with dest and its parents). Anything else (a
// symlink, a device) is an error: a catalog is plain files.
func treeFiles(dir, dest string) ([]layerFile, error) {
	var files []layerFile
	for p := path.Dir(dest); p != "." && p != "/"; p = path.Dir(p) {
		files = append(files, layerFile{name: p, mode: 0o755})
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		name := path.Join(dest, filepath.ToSlash(rel))
		switch {
		case d.IsDir():
			files = append(files, layerFile{name: name, mode: 0o755})
		case d.Type().IsRegular():
			files = append(files, layerFile{name: name, local: p, mode: 0o644})
		default:
			return fmt.Errorf("%s: not a regular file or directory", p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	return files, nil
}
