package declcfgquery

import (
	"errors"
	"io/fs"
	"os"
	"sync"
)

// maxOpenFiles bounds the catalog files openFiles keeps open: clients
// ask for the bundles of one package together (GetBundle of each channel
// member, GetBundleThatReplaces of each), whose blobs share a file or a
// few, so a handful of handles take almost every read.
const maxOpenFiles = 8

// openFiles keeps the catalog files read most recently open, so that
// reading a blob back by its byte range costs one pread, not an open and
// a close around it. A handle is used only while the file it reads is
// the one its path names (same device and inode as the caller's stat of
// the path): a file replaced since is opened again, so reads go where
// they went when every call opened the path. A handle in use is closed
// by its last reader once evicted.
type openFiles struct {
	mu    sync.Mutex
	files map[string]*openFile // by path
	tick  uint64
}

// openFile is one open catalog file.
type openFile struct {
	f       *os.File
	info    fs.FileInfo // of the open file, for os.SameFile
	users   int
	evicted bool
	used    uint64 // openFiles.tick at the last use
}

func newOpenFiles() *openFiles { return &openFiles{files: map[string]*openFile{}} }

// readAt reads n bytes at off of the file at path, which the caller has
// just stat'ed (st).
func (o *openFiles) readAt(path string, st fs.FileInfo, off, n int64) ([]byte, error) {
	h, err := o.acquire(path, st)
	if err != nil {
		return nil, err
	}
	defer o.release(h)
	blob := make([]byte, n)
	if _, err := h.f.ReadAt(blob, off); err != nil {
		return nil, err
	}
	return blob, nil
}

// acquire returns an open handle of the file path names now (st), opening
// it (and evicting the least recently used handle beyond maxOpenFiles)
// when none is open.
func (o *openFiles) acquire(path string, st fs.FileInfo) (*openFile, error) {
	o.mu.Lock()
	o.tick++
	if h, ok := o.files[path]; ok {
		if os.SameFile(h.info, st) {
			h.users++
			h.used = o.tick
			o.mu.Unlock()
			return h, nil
		}
		o.evictLocked(path, h) // the path names another file now
	}
	o.mu.Unlock()
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		return nil, errors.Join(err, f.Close())
	}
	h := &openFile{f: f, info: info, users: 1}
	o.mu.Lock()
	defer o.mu.Unlock()
	if old, ok := o.files[path]; ok {
		o.evictLocked(path, old) // opened meanwhile by another call
	}
	for len(o.files) >= maxOpenFiles {
		var lru string
		for p, c := range o.files {
			if lru == "" || c.used < o.files[lru].used {
				lru = p
			}
		}
		o.evictLocked(lru, o.files[lru])
	}
	h.used = o.tick
	o.files[path] = h
	return h, nil
}

// release ends a use of h, closing it if it was evicted meanwhile.
func (o *openFiles) release(h *openFile) {
	o.mu.Lock()
	h.users--
	last := h.evicted && h.users == 0
	o.mu.Unlock()
	if last {
		h.f.Close() // read-only: nothing to lose
	}
}

// evictLocked drops h from the kept handles; it is closed now if unused,
// else by its last reader. o.mu is held.
func (o *openFiles) evictLocked(path string, h *openFile) {
	delete(o.files, path)
	h.evicted = true
	if h.users == 0 {
		h.f.Close()
	}
}

// closeAll closes every kept handle (those in use once their readers are
// done); a later read opens its file again.
func (o *openFiles) closeAll() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for p, h := range o.files {
		o.evictLocked(p, h)
	}
}
