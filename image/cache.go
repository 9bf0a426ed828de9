package image

import (
	"bufio"

	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/operator-catalog/olmcat/internal/crashpoint"
	"github.com/operator-catalog/olmcat/internal/tempdir"
)

// DefaultCacheDir is where pulled layers are kept unless the caller moves
// them: <user cache dir>/olmcat/images (os.UserCacheDir).
func DefaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("user cache dir: %w", err)
	}
	return filepath.Join(d, "olmcat", "images"), nil
}

// layerCache keeps compressed layer blobs in an OCI image layout
// (oci-layout, index.json, blobs/<alg>/<hex>), the format opm's
// OLM_CACHE_DIR uses too. A blob is only ever renamed into place after it
// was read whole and its digest verified, so a blob present is correct.
type layerCache struct {
	dir string

	mu sync.Mutex
	// part is the marked directory the downloads of this opening go to,
	// made at the first miss and removed by close: a directory per
	// download cost a mkdir, a lock and a removal per layer fetched.
	part *tempdir.Dir
}

const ociLayoutFile = `{"imageLayoutVersion":"1.0.0"}`
const emptyIndexFile = `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}`

// openLayerCache opens (creating it when missing) the cache in dir and
// removes the downloads that killed runs left in it, each told to note.
func openLayerCache(dir string, note func(string)) (*layerCache, error) {
	blobs := filepath.Join(dir, "blobs", "sha256")
	if err := os.MkdirAll(blobs, 0o755); err != nil {
		return nil, fmt.Errorf("layer cache: %w", err)
	}
	if err := sweepTempDirs(blobs, partialPrefix, note); err != nil {
		return nil, fmt.Errorf("layer cache: %w", err)
	}
	for name, content := range map[string]string{"oci-layout": ociLayoutFile, "index.json": emptyIndexFile} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				return nil, fmt.Errorf("layer cache: %w", err)
			}
		}
	}
	return &layerCache{dir: dir}, nil
}

// downloads returns the directory of this opening's downloads.
func (c *layerCache) downloads() (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.part == nil {
		part, err := tempdir.Create(filepath.Join(c.dir, "blobs", "sha256"), partialPrefix)
		if err != nil {
			return "", err
		}
		c.part = part
	}
	return c.part.Path, nil
}

// close removes the downloads directory, with what failed downloads left
// in it (a removal that fails leaves it to the next run's sweep).
func (c *layerCache) close() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_ = c.part.Remove()
	c.part = nil
}

func (c *layerCache) blobPath(h v1.Hash) string {
	return filepath.Join(c.dir, "blobs", h.Algorithm, h.Hex)
}

// openLayer returns the uncompressed tar stream of l, metered by m, and
// a finish func to call once the stream was read to its end: on a cache
// miss it drains the download, checks its digest and moves it into the
// cache. A cached blob is used only after its size and digest were
// checked again (the cache directory is writable by anyone who can write
// the user's files); a bad one is removed, reported to note and fetched
// again. Cache hits make no request.
func (c *layerCache) openLayer(l v1.Layer, m *meter, p Progress, note func(string)) (io.Reader, func() error, error) {
	d, err := l.Digest()
	if err != nil {
		return nil, nil, fmt.Errorf("layer digest: %w", err)
	}
	if c != nil {
		f, err := c.verified(l, d, note)
		if err != nil {
			return nil, nil, err
		}
		if f != nil {
			r, err := decompress(m.compressedReader(f, p))
			if err != nil {
				f.Close()
				return nil, nil, fmt.Errorf("cached layer %s: %w", d, err)
			}
			return expandedReader{r, m}, f.Close, nil
		}
	}
	rc, err := l.Compressed()
	if err != nil {
		return nil, nil, fmt.Errorf("fetch layer %s: %w", d, err)
	}
	if c == nil {
		r, err := decompress(m.compressedReader(rc, p))
		if err != nil {
			rc.Close()
			return nil, nil, fmt.Errorf("layer %s: %w", d, err)
		}
		return expandedReader{r, m}, func() error { return drainClose(rc) }, nil
	}
	// The download goes to a marked temporary directory beside the blobs:
	// a run killed mid-download leaves it unlocked, and the next run that
	// opens this cache removes it (openLayerCache).
	part, err := c.downloads()
	if err != nil {
		rc.Close()
		return nil, nil, fmt.Errorf("layer cache: %w", err)
	}
	tmp, err := os.CreateTemp(part, d.Hex+"-*")
	if err != nil {
		rc.Close()
		return nil, nil, fmt.Errorf("layer cache: %w", err)
	}
	tee := io.TeeReader(rc, tmp)
	r, err := decompress(m.compressedReader(io.NopCloser(tee), p))
	if err != nil {
		rc.Close()
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, nil, fmt.Errorf("layer %s: %w", d, err)
	}
	finish := func() error {
		defer os.Remove(tmp.Name())         // a download that failed; gone once renamed
		_, derr := io.Copy(io.Discard, tee) // the digest is checked at EOF
		cerr := rc.Close()
		terr := tmp.Close()
		if err := errors.Join(derr, cerr, terr); err != nil {
			return fmt.Errorf("layer %s: %w", d, err)
		}
		if err := os.Rename(tmp.Name(), c.blobPath(d)); err != nil {
			return fmt.Errorf("layer cache: %w", err)
		}
		// Killed here, the blob is in place and verified, and the empty
		// download directory is swept by the next run.
		crashpoint.Hit("cached layer " + d.String())
		return nil
	}
	return expandedReader{r, m}, finish, nil
}

// verified opens the cached blob of l, rewound, if it has l's size and
// digest; nil if there is none or it was bad (then it is removed and note
// says so).
func (c *layerCache) verified(l v1.Layer, d v1.Hash, note func(string)) (*os.File, error) {
	p := c.blobPath(d)
	f, err := os.Open(p)
	if err != nil {
		return nil, nil
	}
	why := ""
	st, err := f.Stat()
	if size, serr := l.Size(); err != nil || serr != nil || st.Size() != size {
		why = "its size differs from the manifest's"
	} else if h, n, err := v1.SHA256(f); err != nil || n != size || h != d {
		why = fmt.Sprintf("its digest is %s", h)
	} else if _, err := f.Seek(0, io.SeekStart); err == nil {
		return f, nil
	}
	f.Close()
	if why == "" {
		return nil, fmt.Errorf("cached layer %s: rewind %s", d, p)
	}
	if err := os.Remove(p); err != nil {
		return nil, fmt.Errorf("cached layer %s is damaged (%s) and cannot be removed: %w", d, why, err)
	}
	if note != nil {
		note(fmt.Sprintf("cached layer %s was damaged (%s): removed, fetching it again", d, why))
	}
	return nil, nil
}

func drainClose(rc io.ReadCloser) error {
	_, err := io.Copy(io.Discard, rc)
	return errors.Join(err, rc.Close())
}

// decompress sniffs gzip or zstd; anything else is read as a plain tar.
// klauspost's gzip reader is used for its speed: layers of legacy
// indexes are hundreds of megabytes.
func decompress(rc io.ReadCloser) (io.Reader, error) {
	br := bufio.NewReaderSize(rc, 64*1024)
	magic, _ := br.Peek(4)
	switch {
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		return gzip.NewReader(br)
	case len(magic) == 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd:
		zr, err := zstd.NewReader(br)
		if err != nil {
			return nil, err
		}
		return zr.IOReadCloser(), nil
	}
	return br, nil
}

// Progress is told how many compressed layer bytes an extraction reads
// (from the registry or the cache).
type Progress interface {
	// Start gives the total: the sum of the layers' sizes.
	Start(total int64)
	// Add reports n more bytes read.
	Add(n int64)
	// Done ends the extraction.
	Done()
}

type countingReader struct {
	io.ReadCloser
	add func(int64)
}

func (c countingReader) Read(b []byte) (int, error) {
	n, err := c.ReadCloser.Read(b)
	c.add(int64(n))
	return n, err
}
