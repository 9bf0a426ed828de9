package declcfgquery

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/model"
	"github.com/operator-catalog/olmcat/internal/lru"
	"github.com/operator-catalog/olmcat/registry/api"
)

// loadFromFiles builds a Querier from the catalog files without holding
// the catalog: model.ValidateDir validates the directory package by
// package, exactly as a full load and model would (same errors), reading
// it lean (model.WithLeanBundles: every object is checked, then
// dropped); each valid package is converted and added to the index, with,
// per bundle, where its blob is instead of its manifests, and its model
// is dropped. Conversion runs beside the decoding of the next packages.
// The load notes each file's stamp as it opens it, and where each blob
// is in its file as it frames it (model.WithFileReads), so that serving
// a blob reads that blob alone and knows the file is the one decoded.
func loadFromFiles(ctx context.Context, dir string) (*Querier, error) {
	src := newFileSource(dir)
	ib := newIndexBuilder()
	conv := newConverter(ctx, func(c *convertedPackage) error {
		if err := src.addPackage(c.model); err != nil {
			return err
		}
		return ib.addPackage(c.pkg, c.bundles, func(i int32, b *api.Bundle) error {
			return src.addBundle(i, c.model.Channels[b.ChannelName].Bundles[b.CsvName].Origin)
		})
	})
	_, err := model.ValidateDir(ctx, dir, model.WithModels(conv.add), model.WithLeanBundles(), model.WithFileReads(src.noteRead))
	if cerr := conv.wait(); err == nil {
		err = cerr
	}
	src.loaded = nil // every blob ref has its range and its file its stamp now
	var ve *model.ValidationError
	switch {
	case errors.As(err, &ve):
		return nil, fmt.Errorf("validate catalog %s: %w", dir, err)
	case err != nil:
		return nil, fmt.Errorf("load catalog %s: %w", dir, err)
	}
	q, err := ib.finish(src)
	if err != nil {
		return nil, fmt.Errorf("load catalog %s: %w", dir, err)
	}
	return q, nil
}

// fileSource serves bundle manifests from the catalog files themselves:
// the index keeps, per bundle, only where its blob is, and a call that
// returns manifests decodes that one blob again (declcfg.WithBlob) and
// converts it as the full load would have. The files must not change
// while served: a file whose size or modification time differs from when
// it was loaded fails the call with an error saying so, instead of
// serving other content.
type fileSource struct {
	dir string
	// files are the slash paths (relative to dir) of the files holding
	// bundles or packages, and stamps their size and modification time
	// when they were loaded, by file number.
	files  []string
	stamps []fileStamp
	fileNo map[string]int32
	// refs are where each bundle's blob is, by bundle index.
	refs []blobRef
	// pkgRefs are where each package's blob is: a synthetic CSV takes the
	// package's description and icon from it.
	pkgRefs map[string]blobRef
	spans   *spanCache
	// loaded are what the load saw of each file (its stamp, the blob
	// ranges of a plain JSON file), copied into stamps and refs; dropped
	// once loaded.
	loadedMu sync.Mutex
	loaded   map[string]declcfg.FileRead
	cache    *lru.Cache[int32, blobManifests]
	// rootFinished is set once a blob read found no unfinished write of
	// dir (declcfg.WithRootFinished).
	rootFinished atomic.Bool
}

// blobRef is where a blob is: file number and position in the file's
// stream, and, when the load framed it in a plain JSON file, its byte
// range there, so that serving it reads it alone (Len 0: not known; the
// file's ranges are then found on its first read, see spanCache). A
// uint32 range keeps the ref at 16 bytes; a blob ending beyond 4 GiB into
// its file has none.
type blobRef struct {
	File, Index int32
	Off, Len    uint32
}

type fileStamp struct {
	size int64
	mod  time.Time
}

func newFileSource(dir string) *fileSource {
	return &fileSource{dir: dir, fileNo: map[string]int32{}, pkgRefs: map[string]blobRef{},
		spans: newSpanCache(), loaded: map[string]declcfg.FileRead{}, cache: lru.New[int32, blobManifests](manifestCacheBytes)}
}

// noteRead keeps what the load saw of a file (model.WithFileReads); the
// load calls it from its decoding goroutines.
func (s *fileSource) noteRead(r declcfg.FileRead) {
	s.loadedMu.Lock()
	s.loaded[r.File] = r
	s.loadedMu.Unlock()
}

// ref numbers the file of origin (stamping it on first sight) and
// returns where the blob is. The stamp is the one the load took before
// it read the file: a stat now would miss a write between that read and
// this package's turn, and the file would then serve what was never
// validated.
func (s *fileSource) ref(o declcfg.Origin) (blobRef, error) {
	s.loadedMu.Lock()
	read, noted := s.loaded[o.File]
	s.loadedMu.Unlock()
	n, ok := s.fileNo[o.File]
	if !ok {
		stamp := fileStamp{size: read.Size, mod: read.ModTime}
		if !noted { // every file the load decodes is noted; a stat is the fallback
			st, err := os.Stat(filepath.Join(s.dir, filepath.FromSlash(o.File)))
			if err != nil {
				return blobRef{}, fmt.Errorf("stat %s: %w", o.File, err)
			}
			stamp = fileStamp{size: st.Size(), mod: st.ModTime()}
		}
		n = int32(len(s.files))
		s.files = append(s.files, o.File)
		s.stamps = append(s.stamps, stamp)
		s.fileNo[o.File] = n
	}
	r := blobRef{File: n, Index: int32(o.Index)}
	spans := read.Spans
	if o.Index < len(spans) {
		if sp := spans[o.Index]; sp.End <= math.MaxUint32 {
			r.Off, r.Len = uint32(sp.Off), uint32(sp.End-sp.Off)
		}
	}
	return r, nil
}

func (s *fileSource) addPackage(mp *model.Package) error {
	r, err := s.ref(mp.Origin)
	if err != nil {
		return err
	}
	s.pkgRefs[mp.Name] = r
	return nil
}

func (s *fileSource) addBundle(i int32, o declcfg.Origin) error {
	r, err := s.ref(o)
	if err != nil {
		return err
	}
	for int(i) >= len(s.refs) {
		s.refs = append(s.refs, blobRef{})
	}
	s.refs[i] = r
	return nil
}

// checkFile fails when file number n changed since it was loaded.
func (s *fileSource) checkFile(n int32) error {
	st, err := os.Stat(filepath.Join(s.dir, filepath.FromSlash(s.files[n])))
	if err != nil {
		return err
	}
	if want := s.stamps[n]; st.Size() != want.size || !st.ModTime().Equal(want.mod) {
		return fmt.Errorf("the file changed since the catalog was loaded (size %d -> %d, modified %s -> %s); restart the server to serve the new content",
			want.size, st.Size(), want.mod.UTC().Format(time.RFC3339Nano), st.ModTime().UTC().Format(time.RFC3339Nano))
	}
	return nil
}

// readBlob decodes the blob ref points at; the caller has checked its
// file (checkFile).
func (s *fileSource) readBlob(ref blobRef) (*declcfg.DeclarativeConfig, error) {
	file := s.files[ref.File]
	var blob []byte
	var err error
	if ref.Len > 0 {
		blob, err = readRange(filepath.Join(s.dir, filepath.FromSlash(file)), int64(ref.Off), int64(ref.Len))
	} else {
		blob, err = s.spans.read(s.dir, file, int(ref.Index))
	}
	if err != nil {
		return nil, err
	}
	// Without the blob's bytes at hand, its file is read up to it. Once a
	// read has found no unfinished write of dir (or finished it), the
	// next ones do not look again: checkFile notices a file changed since.
	opts := []declcfg.LoadOption{declcfg.WithBlob(file, int(ref.Index), blob)}
	if s.rootFinished.Load() {
		opts = append(opts, declcfg.WithRootFinished())
	}
	cfg, err := declcfg.LoadDir(context.Background(), s.dir, opts...)
	if err == nil {
		s.rootFinished.Store(true)
	}
	return cfg, err
}

// manifests decodes bundle i's blob again and converts its manifests as
// New does.
func (s *fileSource) manifests(q *Querier, i int32) (string, []string, error) {
	rec := &q.bundles[i]
	pkg, name := q.str(rec.Pkg), q.str(rec.Name)
	ref := s.refs[i]
	fail := func(err error) (string, []string, error) {
		return "", nil, fmt.Errorf("read manifests of bundle %q from %s: %w", name, s.files[ref.File], err)
	}
	if err := s.checkFile(ref.File); err != nil {
		return fail(err)
	}
	if m, ok := s.cache.Get(i); ok {
		return m.csv, m.objs, nil
	}
	cfg, err := s.readBlob(ref)
	if err != nil {
		return fail(err)
	}
	if len(cfg.Bundles) != 1 || cfg.Bundles[0].Name != name || cfg.Bundles[0].Package != pkg {
		return fail(fmt.Errorf("blob #%d is no longer bundle %q of package %q", ref.Index, name, pkg))
	}
	d, err := s.convert(pkg, q.str(rec.Version), &cfg.Bundles[0])
	if err != nil {
		return fail(err)
	}
	size := int64(len(d.csvJSON))
	for _, o := range d.objects {
		size += int64(len(o))
	}
	s.cache.Add(i, blobManifests{d.csvJSON, d.objects}, size)
	return d.csvJSON, d.objects, nil
}

// blobManifests are a bundle blob's converted manifests, as cached.
type blobManifests struct {
	csv  string
	objs []string
}

// manifestCacheBytes bounds the LRU of converted manifests: clients walk
// a catalog channel by channel and ask for the same few bundles again and
// again (GetBundle of each member, GetBundleThatReplaces of each, which
// returns a neighbour), so the cache saves those repeated decodes. The
// repeats fall within the few packages walked at once, so a few packages'
// manifests are enough; more only holds memory that serves no repeat (a
// parity walk decodes each bundle once with a quarter of this), and the
// bound is what a server's memory stops at as catalogs grow.
const manifestCacheBytes = 4 << 20

// convertedPackage is a package's model (blob origins only are used
// once converted) and its messages without manifests.
type convertedPackage struct {
	model   *model.Package
	pkg     *api.Package
	bundles []*api.Bundle
	err     error
	done    chan struct{}
}

// converter converts packages on every core as they are handed over and
// hands them to keep one at a time, in the order they came.
type converter struct {
	ctx   context.Context
	keep  func(*convertedPackage) error
	slots chan struct{}
	order chan *convertedPackage
	err   chan error
}

func newConverter(ctx context.Context, keep func(*convertedPackage) error) *converter {
	c := &converter{ctx: ctx, keep: keep, slots: make(chan struct{}, runtime.GOMAXPROCS(0)),
		order: make(chan *convertedPackage, 2*runtime.GOMAXPROCS(0)), err: make(chan error, 1)}
	go c.collect()
	return c
}

// add starts converting every package of m (model.WithModels' callback).
func (c *converter) add(m *model.Model) error {
	for _, name := range sortedNames(m.Packages) {
		cp := &convertedPackage{model: m.Packages[name], done: make(chan struct{})}
		select {
		case c.slots <- struct{}{}:
		case <-c.ctx.Done():
			return c.ctx.Err()
		}
		go func() {
			defer func() { <-c.slots; close(cp.done) }()
			cp.convert()
		}()
		select {
		case c.order <- cp:
		case err := <-c.err:
			c.err <- err
			return err
		}
	}
	return nil
}

// collect keeps the converted packages in order; the first error stops it.
func (c *converter) collect() {
	var first error
	for cp := range c.order {
		<-cp.done
		if first == nil {
			if first = cp.err; first == nil {
				first = c.keep(cp)
			}
			if first != nil {
				c.err <- first
			}
		}
	}
	if first == nil {
		c.err <- nil
	}
}

// wait ends the conversions and returns the first error.
func (c *converter) wait() error {
	close(c.order)
	return <-c.err
}

// convert fills cp from its model.
func (cp *convertedPackage) convert() {
	cp.pkg, cp.bundles, cp.err = convertPackage(cp.model, false)
}
