package image

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// refNameAnnotation names an image in an OCI layout's index.json.
const refNameAnnotation = "org.opencontainers.image.ref.name"

// maxManifestSize bounds the index.json, manifests and configs read from
// a local layout into memory (registries bound them the same way).
const maxManifestSize = 16 << 20

// blobStore reads the files of an OCI image layout: a directory, or a tar
// archive of one (read in place, never extracted).
type blobStore interface {
	// open returns the file at the layout path name.
	open(name string) (io.ReadCloser, error)
	// where names the layout in errors.
	where() string
}

type dirStore string

func (d dirStore) open(name string) (io.ReadCloser, error) {
	return os.Open(filepath.Join(string(d), filepath.FromSlash(name)))
}

func (d dirStore) where() string { return "OCI layout " + string(d) }

// tarStore serves the regular files of an OCI archive from their offsets
// in the tar file.
type tarStore struct {
	f     *os.File
	name  string
	files map[string]*io.SectionReader
}

// openTarStore indexes the regular files of the archive; more entries
// than maxFiles is a LimitError (the index is held in memory).
func openTarStore(file string, maxFiles int64) (*tarStore, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("OCI archive: %w", err)
	}
	s := &tarStore{f: f, name: file, files: map[string]*io.SectionReader{}}
	tr := tar.NewReader(f)
	for n := int64(1); ; n++ {
		hdr, err := tr.Next()
		if err == io.EOF {
			return s, nil
		}
		if err == nil && n > maxFiles {
			err = &LimitError{Kind: LimitFiles, Image: ArchivePrefix + file, Value: n, Max: maxFiles}
		}
		if err != nil {
			f.Close()
			var le *LimitError
			if errors.As(err, &le) {
				return nil, le
			}
			return nil, fmt.Errorf("OCI archive %s: read tar: %w", file, err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		// tar.Reader reads no further than the header, so the file's
		// offset is where the entry's data starts.
		at, err := f.Seek(0, io.SeekCurrent)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("OCI archive %s: %w", file, err)
		}
		s.files[path.Clean(strings.TrimLeft(hdr.Name, "/"))] = io.NewSectionReader(f, at, hdr.Size)
	}
}

func (s *tarStore) open(name string) (io.ReadCloser, error) {
	r, ok := s.files[name]
	if !ok {
		return nil, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
	}
	return io.NopCloser(io.NewSectionReader(r, 0, r.Size())), nil
}

func (s *tarStore) where() string { return "OCI archive " + s.name }

// readBlob reads a small blob (a manifest or a config) whole and checks
// its digest.
func readBlob(s blobStore, h v1.Hash) ([]byte, error) {
	rc, err := s.open(path.Join("blobs", h.Algorithm, h.Hex))
	if err != nil {
		return nil, fmt.Errorf("%s: blob %s: %w", s.where(), h, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxManifestSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: blob %s: %w", s.where(), h, err)
	}
	if len(data) > maxManifestSize {
		return nil, fmt.Errorf("%s: blob %s: larger than %s, not a manifest or config", s.where(), h, sizeString(maxManifestSize))
	}
	if got, _, _ := v1.SHA256(bytes.NewReader(data)); got != h {
		return nil, fmt.Errorf("%s: blob %s: its content has digest %s", s.where(), h, got)
	}
	return data, nil
}

// layoutIndex is an image index of a layout: index.json itself, or an
// index it references.
type layoutIndex struct {
	store blobStore
	raw   []byte
	im    *v1.IndexManifest
}

func newLayoutIndex(s blobStore, raw []byte) (*layoutIndex, error) {
	im, err := v1.ParseIndexManifest(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: image index: %w", s.where(), err)
	}
	return &layoutIndex{store: s, raw: raw, im: im}, nil
}

func (x *layoutIndex) MediaType() (types.MediaType, error) {
	if x.im.MediaType != "" {
		return x.im.MediaType, nil
	}
	return types.OCIImageIndex, nil
}
func (x *layoutIndex) Digest() (v1.Hash, error)                  { return partial.Digest(x) }
func (x *layoutIndex) Size() (int64, error)                      { return int64(len(x.raw)), nil }
func (x *layoutIndex) IndexManifest() (*v1.IndexManifest, error) { return x.im.DeepCopy(), nil }
func (x *layoutIndex) RawManifest() ([]byte, error)              { return x.raw, nil }

func (x *layoutIndex) ImageIndex(h v1.Hash) (v1.ImageIndex, error) {
	raw, err := readBlob(x.store, h)
	if err != nil {
		return nil, err
	}
	return newLayoutIndex(x.store, raw)
}

func (x *layoutIndex) Image(h v1.Hash) (v1.Image, error) {
	raw, err := readBlob(x.store, h)
	if err != nil {
		return nil, err
	}
	m, err := v1.ParseManifest(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: manifest %s: %w", x.store.where(), h, err)
	}
	return partial.CompressedToImage(&layoutImage{store: x.store, raw: raw, m: m})
}

// layoutImage is an image of a layout; its layers stream from the store
// and are verified against their digests (verifiedLayer).
type layoutImage struct {
	store blobStore
	raw   []byte
	m     *v1.Manifest
}

func (li *layoutImage) RawManifest() ([]byte, error) { return li.raw, nil }
func (li *layoutImage) RawConfigFile() ([]byte, error) {
	return readBlob(li.store, li.m.Config.Digest)
}
func (li *layoutImage) MediaType() (types.MediaType, error) {
	if li.m.MediaType != "" {
		return li.m.MediaType, nil
	}
	return types.OCIManifestSchema1, nil
}

func (li *layoutImage) LayerByDigest(h v1.Hash) (partial.CompressedLayer, error) {
	for _, d := range li.m.Layers {
		if d.Digest == h {
			return verifiedLayer{&layoutLayer{store: li.store, desc: d}}, nil
		}
	}
	return nil, fmt.Errorf("%s: no layer %s in the manifest", li.store.where(), h)
}

type layoutLayer struct {
	store blobStore
	desc  v1.Descriptor
}

func (l *layoutLayer) Digest() (v1.Hash, error)            { return l.desc.Digest, nil }
func (l *layoutLayer) Size() (int64, error)                { return l.desc.Size, nil }
func (l *layoutLayer) MediaType() (types.MediaType, error) { return l.desc.MediaType, nil }
func (l *layoutLayer) Compressed() (io.ReadCloser, error) {
	rc, err := l.store.open(path.Join("blobs", l.desc.Digest.Algorithm, l.desc.Digest.Hex))
	if err != nil {
		return nil, fmt.Errorf("%s: layer %s: %w", l.store.where(), l.desc.Digest, err)
	}
	return rc, nil
}

// verifiedLayer checks, at the end of its compressed stream, that what
// was read has the layer's size and digest (a registry pull checks this
// itself; a local layout does not).
type verifiedLayer struct{ partial.CompressedLayer }

func (v verifiedLayer) Compressed() (io.ReadCloser, error) {
	rc, err := v.CompressedLayer.Compressed()
	if err != nil {
		return nil, err
	}
	d, _ := v.Digest()
	size, _ := v.Size()
	h, err := v1.Hasher(d.Algorithm)
	if err != nil {
		rc.Close()
		return nil, err
	}
	return &verifyingReader{rc: rc, h: h, want: d, size: size}, nil
}

type verifyingReader struct {
	rc   io.ReadCloser
	h    hash.Hash
	want v1.Hash
	size int64
	n    int64
}

func (v *verifyingReader) Read(b []byte) (int, error) {
	n, err := v.rc.Read(b)
	v.h.Write(b[:n])
	v.n += int64(n)
	if err == io.EOF {
		got := v1.Hash{Algorithm: v.want.Algorithm, Hex: fmt.Sprintf("%x", v.h.Sum(nil))}
		if v.n != v.size || got != v.want {
			return n, fmt.Errorf("layer %s: content is %d bytes with digest %s, want %d bytes", v.want, v.n, got, v.size)
		}
	}
	return n, err
}

func (v *verifyingReader) Close() error { return v.rc.Close() }

// layoutTarget picks the manifest named ref (an image's full reference
// or its tag, as build and other tools write them) from index.json, or
// the only one when ref is empty.
func layoutTarget(s blobStore, ref string) (*layoutIndex, v1.Descriptor, error) {
	rc, err := s.open("index.json")
	if err != nil {
		return nil, v1.Descriptor{}, fmt.Errorf("%s: not an OCI image layout: %w", s.where(), err)
	}
	raw, err := io.ReadAll(io.LimitReader(rc, maxManifestSize))
	rc.Close()
	if err != nil {
		return nil, v1.Descriptor{}, fmt.Errorf("%s: index.json: %w", s.where(), err)
	}
	top, err := newLayoutIndex(s, raw)
	if err != nil {
		return nil, v1.Descriptor{}, err
	}
	var names []string
	for _, d := range top.im.Manifests {
		n := d.Annotations[refNameAnnotation]
		if ref == "" && len(top.im.Manifests) == 1 || ref != "" && (n == ref || strings.HasSuffix(n, ":"+ref)) {
			return top, d, nil
		}
		names = append(names, fmt.Sprintf("%q", n))
	}
	if ref == "" {
		return nil, v1.Descriptor{}, fmt.Errorf("%s holds %d images (%s): name one after a colon", s.where(), len(names), strings.Join(names, ", "))
	}
	return nil, v1.Descriptor{}, fmt.Errorf("%s: no image named %q (%s): %w", s.where(), ref, strings.Join(names, ", "), ErrNotFound)
}

// openLayout returns the image of a local layout input for the options'
// platform.
func openLayout(l Layout, o *options) (*Pulled, error) {
	var s blobStore = dirStore(l.Path)
	if l.Archive {
		ts, err := openTarStore(l.Path, o.limits.MaxFiles)
		if err != nil {
			return nil, err
		}
		s = ts
	} else if st, err := os.Stat(l.Path); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("OCI layout %s: not a directory", l.Path)
	}
	top, desc, err := layoutTarget(s, l.Ref)
	if err != nil {
		return nil, err
	}
	p := &Pulled{Ref: l.Arg, opts: o, local: true}
	if ts, ok := s.(*tarStore); ok {
		p.closer = ts.f
	}
	if !desc.MediaType.IsIndex() {
		img, err := top.Image(desc.Digest)
		if err != nil {
			return nil, err
		}
		p.Image, p.Digest = img, desc.Digest
		return p, nil
	}
	idx, err := top.ImageIndex(desc.Digest)
	if err == nil {
		err = p.choosePlatform(idx, desc.Digest, s.where())
	}
	if err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}
