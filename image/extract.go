package image

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// whiteoutPrefix and opaqueWhiteout are the OCI layer markers for a
// deleted path and for a directory whose lower content is hidden.
const (
	whiteoutPrefix = ".wh."
	opaqueWhiteout = ".wh..wh..opq"
)

// flattener applies layers top first, so the first occurrence of a path
// wins, and writes the entries below the wanted image paths into root.
//
// Invariants: nothing is ever written outside root (entry names are
// cleaned and refused if they climb out; parents are created one by one
// and must be real directories, never symlinks); every symlink written
// points inside a wanted path once extraction ends (checkLinks).
type flattener struct {
	root   string
	wanted []string // cleaned image paths, relative to the image root

	seen     map[string]bool // paths an upper layer defined
	deleted  map[string]bool // paths an upper layer whited out
	opaque   map[string]bool // dirs whose lower content an upper layer hid
	nondirs  map[string]bool // upper non-directories hiding lower children
	realDirs map[string]bool // local dirs created by us
	links    []string        // image paths of symlinks written

	mem     *memTree // set: the entries go to memory, not below root
	limits  Limits
	written int64 // bytes of files written
	files   int64 // entries written
	buf     []byte
}

func newFlattener(root string, wanted []string, limits Limits) *flattener {
	return &flattener{
		root: root, wanted: wanted, limits: limits,
		seen: map[string]bool{}, deleted: map[string]bool{}, opaque: map[string]bool{}, nondirs: map[string]bool{},
		realDirs: map[string]bool{".": true},
	}
}

// layer applies one layer's tar stream, read to its end (the stream's
// own errors, such as a digest mismatch, surface only there).
func (f *flattener) layer(desc string, r io.Reader) error {
	entry := ""
	err := f.entries(desc, r, &entry)
	var le *LimitError
	if errors.As(err, &le) { // returned bare: wrapping fixed its message
		if le.Entry == "" {
			le.Layer, le.Entry = desc, entry
		}
		return le
	}
	return err
}

// entries applies the entries of one layer, keeping the name of the one
// being read in *cur.
func (f *flattener) entries(desc string, r io.Reader, cur *string) error {
	tr := tar.NewReader(r)
	layerDeleted, layerOpaque, layerNondirs := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("layer %s: read tar: %w", desc, err)
		}
		*cur = hdr.Name
		name, err := cleanEntry(hdr.Name)
		if err != nil {
			return fmt.Errorf("layer %s: %w", desc, err)
		}
		if name == "." {
			continue
		}
		dir, base := path.Split(name)
		dir = path.Clean(dir)
		if base == opaqueWhiteout {
			layerOpaque[dir] = true
			continue
		}
		if target, ok := strings.CutPrefix(base, whiteoutPrefix); ok {
			layerDeleted[path.Join(dir, target)] = true
			continue
		}
		if f.hidden(name) {
			continue
		}
		f.seen[name] = true
		if hdr.Typeflag != tar.TypeDir {
			layerNondirs[name] = true
		}
		if err := f.entry(desc, name, hdr, tr); err != nil {
			return err
		}
	}
	*cur = ""
	if _, err := io.Copy(io.Discard, r); err != nil {
		return fmt.Errorf("layer %s: %w", desc, err)
	}
	for _, m := range []struct{ from, to map[string]bool }{{layerDeleted, f.deleted}, {layerOpaque, f.opaque}, {layerNondirs, f.nondirs}} {
		for k := range m.from {
			m.to[k] = true
		}
	}
	return nil
}

// cleanEntry makes a tar entry name relative to the image root. Absolute
// names are taken as root-relative (as a container runtime does); names
// that climb above the root are refused.
func cleanEntry(n string) (string, error) {
	if u := path.Clean(strings.TrimLeft(n, "/")); u == ".." || strings.HasPrefix(u, "../") {
		return "", fmt.Errorf("entry %q climbs out of the image root: refused", n)
	}
	c := strings.TrimPrefix(path.Clean("/"+n), "/")
	if c == "" {
		return ".", nil
	}
	return c, nil
}

// hidden reports whether an upper layer defined, deleted or hid name.
func (f *flattener) hidden(name string) bool {
	if f.seen[name] || f.deleted[name] {
		return true
	}
	for p := path.Dir(name); p != "."; p = path.Dir(p) {
		if f.deleted[p] || f.opaque[p] || f.nondirs[p] {
			return true
		}
	}
	return f.opaque["."]
}

// within returns the wanted path name lies in (or on), and whether name is
// a strict ancestor of a wanted path.
func (f *flattener) within(name string) (inside, ancestor bool) {
	for _, w := range f.wanted {
		if name == w || strings.HasPrefix(name, w+"/") {
			return true, false
		}
		if strings.HasPrefix(w, name+"/") {
			ancestor = true
		}
	}
	return false, ancestor
}

// entry writes one visible entry if it lies below a wanted path.
func (f *flattener) entry(desc, name string, hdr *tar.Header, r io.Reader) error {
	inside, ancestor := f.within(name)
	if !inside {
		if ancestor && hdr.Typeflag != tar.TypeDir {
			return fmt.Errorf("layer %s: %s is a %s, not a directory; olmcat does not follow links to the catalog", desc, name, typeName(hdr.Typeflag))
		}
		return nil
	}
	if err := f.count(hdr); err != nil {
		return err
	}
	if f.mem != nil {
		return f.mem.entry(name, hdr, r)
	}
	local := filepath.Join(f.root, filepath.FromSlash(name))
	if hdr.Typeflag != tar.TypeDir {
		if err := f.mkdirs(path.Dir(name)); err != nil {
			return fmt.Errorf("layer %s: %s: %w", desc, name, err)
		}
	}
	switch {
	case hdr.Typeflag == tar.TypeDir:
		return f.mkdirs(name)
	case regular(hdr.Typeflag):
		return f.writeFile(local, hdr, r)
	case hdr.Typeflag == tar.TypeSymlink:
		return f.symlink(desc, name, hdr.Linkname, local)
	case hdr.Typeflag == tar.TypeLink:
		return f.hardlink(desc, name, hdr.Linkname, local)
	}
	return nil // devices and fifos carry no catalog content
}

// regular says whether a tar entry type is a regular file: plain, an old
// GNU sparse file ('S', what tar -S writes; archive/tar reads it as its
// full size, holes as zeros) or a contiguous file. A PAX sparse file is
// plain to archive/tar already.
func regular(typ byte) bool {
	return typ == tar.TypeReg || typ == tar.TypeGNUSparse || typ == tar.TypeCont
}

// count charges one entry written, and a regular file's size, to the
// limits before anything is written (a sparse file counts its full size).
func (f *flattener) count(hdr *tar.Header) error {
	l := f.limits
	if f.files++; f.files > l.MaxFiles {
		return &LimitError{Kind: LimitFiles, Value: f.files, Max: l.MaxFiles}
	}
	if !regular(hdr.Typeflag) {
		return nil
	}
	if hdr.Size > l.MaxFileBytes {
		return &LimitError{Kind: LimitFileBytes, Value: hdr.Size, Max: l.MaxFileBytes}
	}
	if f.written += hdr.Size; f.written > l.MaxBytes {
		return &LimitError{Kind: LimitBytes, Value: f.written, Max: l.MaxBytes}
	}
	return nil
}

func typeName(t byte) string {
	switch t {
	case tar.TypeSymlink:
		return "symlink"
	case tar.TypeLink:
		return "hardlink"
	case tar.TypeReg, tar.TypeGNUSparse, tar.TypeCont:
		return "regular file"
	}
	return fmt.Sprintf("tar entry of type %q", t)
}

// mkdirs creates dir and its parents below root one component at a
// time, refusing any component that exists as something else than a
// directory created here (a symlink in particular).
func (f *flattener) mkdirs(dir string) error {
	if f.realDirs[dir] {
		return nil
	}
	if parent := path.Dir(dir); parent != dir {
		if err := f.mkdirs(parent); err != nil {
			return err
		}
	}
	local := filepath.Join(f.root, filepath.FromSlash(dir))
	if err := os.Mkdir(local, 0o755); err != nil {
		st, serr := os.Lstat(local)
		if serr != nil || !st.IsDir() {
			return fmt.Errorf("parent %s is not a directory (a link or a file): refused", dir)
		}
	}
	f.realDirs[dir] = true
	return nil
}

func (f *flattener) writeFile(local string, hdr *tar.Header, r io.Reader) error {
	mode := os.FileMode(0o644)
	if hdr.FileInfo().Mode()&0o111 != 0 {
		mode = 0o755
	}
	out, err := os.OpenFile(local, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return fmt.Errorf("extract %s: %w", hdr.Name, err)
	}
	if f.buf == nil {
		f.buf = make([]byte, holeBlock)
	}
	if err := copyHoles(out, r, hdr.Size, f.buf); err != nil {
		out.Close()
		return fmt.Errorf("extract %s: %w", hdr.Name, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("extract %s: %w", hdr.Name, err)
	}
	// Kept: olmcat serve's cache is keyed on file times, so a cache
	// shipped in the image matches only with the image's times.
	return os.Chtimes(local, hdr.ModTime, hdr.ModTime)
}

// symlink writes a link whose target, taken inside the image (absolute
// targets from the image root), must lie below a wanted path; it is
// written relative so it resolves inside root.
func (f *flattener) symlink(desc, name, target, local string) error {
	resolved := path.Clean(path.Join(path.Dir(name), target))
	if path.IsAbs(target) {
		resolved = path.Clean(target)
	}
	resolved = strings.TrimPrefix(resolved, "/")
	if in, _ := f.within(resolved); !in || resolved == ".." || strings.HasPrefix(resolved, "../") {
		return fmt.Errorf("layer %s: symlink %s -> %s points outside %s: refused", desc, name, target, strings.Join(f.wanted, ", "))
	}
	rel, err := filepath.Rel(filepath.Dir(local), filepath.Join(f.root, filepath.FromSlash(resolved)))
	if err != nil {
		return fmt.Errorf("layer %s: symlink %s: %w", desc, name, err)
	}
	if err := os.Symlink(rel, local); err != nil {
		return fmt.Errorf("layer %s: symlink %s: %w", desc, name, err)
	}
	f.links = append(f.links, name)
	return nil
}

// hardlink links to a regular file already extracted below a wanted path.
func (f *flattener) hardlink(desc, name, target, local string) error {
	t, err := cleanEntry(target)
	if err != nil {
		return fmt.Errorf("layer %s: hardlink %s: %w", desc, name, err)
	}
	if in, _ := f.within(t); !in {
		return fmt.Errorf("layer %s: hardlink %s -> %s points outside %s: refused", desc, name, target, strings.Join(f.wanted, ", "))
	}
	src := filepath.Join(f.root, filepath.FromSlash(t))
	st, err := os.Lstat(src)
	if err != nil || !st.Mode().IsRegular() {
		return fmt.Errorf("layer %s: hardlink %s -> %s: target is not an extracted regular file", desc, name, target)
	}
	if err := os.Link(src, local); err != nil {
		return fmt.Errorf("layer %s: hardlink %s: %w", desc, name, err)
	}
	return nil
}

// checkLinks verifies, once every layer is applied, that each symlink
// written resolves below a wanted path (a chain of links, each inside on
// its own, could otherwise climb out). Dangling links are left: reading
// them fails.
func (f *flattener) checkLinks() error {
	for _, name := range f.links {
		real, err := filepath.EvalSymlinks(filepath.Join(f.root, filepath.FromSlash(name)))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("symlink %s: %w", name, err)
		}
		rel, err := filepath.Rel(f.root, real)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Errorf("symlink %s resolves outside the image: refused", name)
		}
		if in, _ := f.within(filepath.ToSlash(rel)); !in {
			return fmt.Errorf("symlink %s resolves to %s, outside %s: refused", name, rel, strings.Join(f.wanted, ", "))
		}
	}
	return nil
}

// holeBlock is the unit copyHoles skips when it is all zeros.
const holeBlock = 64 << 10

// copyHoles copies r (size bytes) to out, seeking over blocks of zeros
// instead of writing them, so the holes of a sparse entry (which the tar
// reader expands into zeros) stay holes on disk.
func copyHoles(out *os.File, r io.Reader, size int64, buf []byte) error {
	var zero [holeBlock]byte
	for done := int64(0); done < size; {
		n, err := io.ReadFull(r, buf[:min(int64(len(buf)), size-done)])
		if n > 0 && bytes.Equal(buf[:n], zero[:n]) {
			_, serr := out.Seek(int64(n), io.SeekCurrent)
			err = errors.Join(err, serr)
		} else if n > 0 {
			_, werr := out.Write(buf[:n])
			err = errors.Join(err, werr)
		}
		done += int64(n)
		if err != nil {
			return err
		}
	}
	return out.Truncate(size)
}
