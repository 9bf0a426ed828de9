package declcfgquery

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/blang/semver/v4"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/jsonscan"
	"github.com/operator-catalog/olmcat/internal/lru"
	"github.com/operator-catalog/olmcat/registry/api"
)

// fileSource serves bundle manifests from the catalog files themselves: a
// Querier loaded without a cache keeps, per bundle message, only where
// its blob is, and a call that returns manifests decodes that one blob
// again. The files must not change while served: a file whose size or
// modification time differs from when it was loaded fails the call with
// an error saying so, instead of serving other content.
type fileSource struct {
	dir   string
	blobs map[*api.Bundle]blobRef
	// stamps are the size and modification time of each file holding a
	// bundle, taken when its package was loaded.
	stamps map[string]fileStamp
	// packages hold what a synthetic CSV takes from its package
	// (description and icon), by package name.
	packages map[string]*declcfg.ModelPackage

	mu    sync.Mutex
	spans map[string][]span // by file, filled on first read

	cache *lru.Cache[blobRef, blobManifests]
}

// blobRef is where a bundle blob is: file (slash path relative to the
// catalog root) and position in the file's stream.
type blobRef struct {
	file  string
	index int
}

// span is a blob's byte range in its file.
type span struct{ off, n int64 }

// readBlob decodes the blob ref points at: from its byte range when the
// file is plain concatenated JSON objects (the ranges of a file are found
// on its first read and kept), else by decoding the file's stream up to it.
func (s *fileSource) readBlob(ref blobRef) (*declcfg.DeclarativeConfig, error) {
	spans, err := s.fileSpans(ref.file)
	if err != nil {
		return nil, err
	}
	if ref.index >= len(spans) {
		return declcfg.LoadBlob(context.Background(), s.dir, ref.file, ref.index)
	}
	f, err := os.Open(filepath.Join(s.dir, filepath.FromSlash(ref.file)))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sp := spans[ref.index]
	blob := make([]byte, sp.n)
	if _, err := f.ReadAt(blob, sp.off); err != nil {
		return nil, err
	}
	return declcfg.DecodeBlob(s.dir, ref.file, ref.index, blob)
}

// fileSpans returns the byte ranges of a file's blobs, nil when the file
// is not plain concatenated JSON objects (YAML, a byte order mark).
func (s *fileSource) fileSpans(file string) ([]span, error) {
	s.mu.Lock()
	spans, ok := s.spans[file]
	s.mu.Unlock()
	if ok {
		return spans, nil
	}
	data, err := os.ReadFile(filepath.Join(s.dir, filepath.FromSlash(file)))
	if err != nil {
		return nil, err
	}
	spans = objectSpans(data)
	s.mu.Lock()
	s.spans[file] = spans
	s.mu.Unlock()
	return spans, nil
}

// objectSpans splits data into the byte ranges of its top-level JSON
// objects, or returns nil when data is anything else.
func objectSpans(data []byte) []span {
	spans, ok := jsonscan.Spans(data)
	if !ok {
		return nil
	}
	out := make([]span, len(spans))
	for i, sp := range spans {
		if data[sp.Off] != '{' {
			return nil
		}
		out[i] = span{int64(sp.Off), int64(sp.End - sp.Off)}
	}
	return out
}

type fileStamp struct {
	size int64
	mod  time.Time
}

// loadFromFiles builds a Querier from the catalog files without holding
// any manifest: the directory is loaded lean (declcfg.WithLeanBundles:
// every blob and object is checked as a full load checks it, so a bad
// catalog fails with the same error, but objects are dropped as they are
// read), validated into a model, and converted to messages that say
// where each bundle's blob is instead of holding its manifests.
func loadFromFiles(ctx context.Context, dir string) (*Querier, error) {
	cfg, err := declcfg.LoadDir(ctx, dir, declcfg.WithLeanBundles())
	if err != nil {
		return nil, fmt.Errorf("load catalog %s: %w", dir, err)
	}
	m, err := declcfg.ConvertToModel(cfg)
	if err != nil {
		return nil, fmt.Errorf("validate catalog %s: %w", dir, err)
	}
	cfg = nil // the model holds what is still needed of it
	src := &fileSource{dir: dir, blobs: map[*api.Bundle]blobRef{}, stamps: map[string]fileStamp{}, packages: map[string]*declcfg.ModelPackage{}, spans: map[string][]span{},
		cache: lru.New[blobRef, blobManifests](manifestCacheBytes)}
	var pkgs []*api.Package
	var bundles []*api.Bundle
	for _, name := range sortedNames(m.Packages) {
		mp := m.Packages[name]
		p, bs, err := convertPackage(mp, false)
		if err != nil {
			return nil, fmt.Errorf("load catalog %s: %w", dir, err)
		}
		if err := src.keep(mp, bs); err != nil {
			return nil, fmt.Errorf("load catalog %s: %w", dir, err)
		}
		delete(m.Packages, name) // converted: let its model go
		pkgs = append(pkgs, p)
		bundles = append(bundles, bs...)
	}
	q, err := build(pkgs, bundles)
	if err != nil {
		return nil, fmt.Errorf("load catalog %s: %w", dir, err)
	}
	q.files = src
	return q, nil
}

// keep drops the manifests of a package's bundle messages, remembering
// where each bundle's blob is and stamping its file.
func (s *fileSource) keep(mp *declcfg.ModelPackage, bundles []*api.Bundle) error {
	s.packages[mp.Name] = &declcfg.ModelPackage{Name: mp.Name, Description: mp.Description, Icon: mp.Icon}
	for _, b := range bundles {
		mb := mp.Channels[b.ChannelName].Bundles[b.CsvName]
		ref := blobRef{file: mb.Origin.File, index: mb.Origin.Index}
		if _, ok := s.stamps[ref.file]; !ok {
			st, err := os.Stat(filepath.Join(s.dir, filepath.FromSlash(ref.file)))
			if err != nil {
				return fmt.Errorf("stat %s: %w", ref.file, err)
			}
			s.stamps[ref.file] = fileStamp{size: st.Size(), mod: st.ModTime()}
		}
		s.blobs[b] = ref
		b.CsvJson, b.Object = "", nil
	}
	return nil
}

// manifests decodes b's blob again and converts its manifests as New did.
func (s *fileSource) manifests(b *api.Bundle) (string, []string, error) {
	ref, ok := s.blobs[b]
	if !ok {
		return b.CsvJson, b.Object, nil
	}
	fail := func(err error) (string, []string, error) {
		return "", nil, fmt.Errorf("read manifests of bundle %q from %s: %w", b.CsvName, ref.file, err)
	}
	st, err := os.Stat(filepath.Join(s.dir, filepath.FromSlash(ref.file)))
	if err != nil {
		return fail(err)
	}
	if want := s.stamps[ref.file]; st.Size() != want.size || !st.ModTime().Equal(want.mod) {
		return fail(fmt.Errorf("the file changed since the catalog was loaded (size %d -> %d, modified %s -> %s); restart the server to serve the new content",
			want.size, st.Size(), want.mod.UTC().Format(time.RFC3339Nano), st.ModTime().UTC().Format(time.RFC3339Nano)))
	}
	if m, ok := s.cache.Get(ref); ok {
		return m.csv, m.objs, nil
	}
	cfg, err := s.readBlob(ref)
	if err != nil {
		return fail(err)
	}
	if len(cfg.Bundles) != 1 || cfg.Bundles[0].Name != b.CsvName || cfg.Bundles[0].Package != b.PackageName {
		return fail(fmt.Errorf("blob #%d is no longer bundle %q of package %q", ref.index, b.CsvName, b.PackageName))
	}
	bb := &cfg.Bundles[0]
	version, _ := semver.Parse(b.Version) // only a fallback: see convertBundle
	d, err := convertBundle(true, &declcfg.ModelBundle{
		Version:       version,
		Package:       s.packages[b.PackageName],
		Name:          bb.Name,
		Image:         bb.Image,
		Properties:    bb.Properties,
		RelatedImages: bb.RelatedImages,
		CsvJSON:       bb.CsvJSON,
		Objects:       bb.Objects,
	})
	if err != nil {
		return fail(err)
	}
	size := int64(len(d.csvJSON))
	for _, o := range d.objects {
		size += int64(len(o))
	}
	s.cache.Add(ref, blobManifests{d.csvJSON, d.objects}, size)
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
// returns a neighbour), so the cache saves those repeated decodes.
const manifestCacheBytes = 16 << 20
