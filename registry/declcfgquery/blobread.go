package declcfgquery

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sync/singleflight"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/model"
	"github.com/operator-catalog/olmcat/internal/jsonscan"
)

// convert converts the manifests of a bundle blob read back from its
// file as the full load does (bundleManifests); a synthetic CSV
// (olm.csv.metadata) takes the package's description and icon from the
// package blob, read then, and version is the bundle's version as the
// index keeps it. The other properties were converted by the load, from
// the same blob: their conversion is not done again.
func (s *fileSource) convert(pkg, version string, bb *declcfg.Bundle) (*bundleData, error) {
	mb := &model.Bundle{
		Name:          bb.Name,
		Image:         bb.Image,
		Properties:    bb.Properties,
		RelatedImages: bb.RelatedImages,
		CsvJSON:       bb.CsvJSON,
		Objects:       bb.Objects,
	}
	var csvMeta []declcfg.Property
	for _, p := range bb.Properties {
		if p.Type == declcfg.PropertyCSVMetadata {
			csvMeta = append(csvMeta, p)
		}
	}
	if bb.CsvJSON == "" && len(csvMeta) > 0 {
		p, err := s.pkg(pkg)
		if err != nil {
			return nil, err
		}
		mb.Package = p
	}
	csv, objs, err := bundleManifests(mb, csvMeta, version)
	if err != nil {
		return nil, err
	}
	return &bundleData{version: version, csvJSON: csv, objects: objs}, nil
}

// pkg reads the description and icon of package name from its blob.
func (s *fileSource) pkg(name string) (*model.Package, error) {
	ref, ok := s.pkgRefs[name]
	if !ok {
		return nil, fmt.Errorf("package %q: no olm.package blob", name)
	}
	err := s.checkFile(ref.File)
	var cfg *declcfg.DeclarativeConfig
	if err == nil {
		cfg, err = s.readBlob(ref)
	}
	if err != nil {
		return nil, fmt.Errorf("read package %q from %s: %w", name, s.files[ref.File], err)
	}
	if len(cfg.Packages) != 1 || cfg.Packages[0].Name != name {
		return nil, fmt.Errorf("blob #%d of %s is no longer package %q", ref.Index, s.files[ref.File], name)
	}
	p := &cfg.Packages[0]
	return &model.Package{Name: p.Name, Description: p.Description, Icon: p.Icon}, nil
}

// spanCache reads blobs by their byte range: the ranges of a file's blobs
// are found on its first read and kept. Calls that find a file's ranges
// missing at once share one read of the file: a client's concurrent calls
// about one package's bundles ask for blobs of the same file together.
type spanCache struct {
	mu    sync.Mutex
	spans map[string][]span // by file; nil when not plain JSON objects
	reads singleflight.Group
}

// span is a blob's byte range in its file.
type span struct{ off, n int64 }

func newSpanCache() *spanCache { return &spanCache{spans: map[string][]span{}} }

// read returns blob #index of file (slash path relative to dir), or nil
// when the file is not plain concatenated JSON objects (YAML, a byte
// order mark) and the caller must decode its stream instead.
func (c *spanCache) read(dir, file string, index int) ([]byte, error) {
	path := filepath.Join(dir, filepath.FromSlash(file))
	spans, err := c.fileSpans(path, file)
	if err != nil {
		return nil, err
	}
	if index >= len(spans) {
		return nil, nil
	}
	return readRange(path, spans[index].off, spans[index].n)
}

// readRange reads n bytes at off of the file at path.
func readRange(path string, off, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	blob := make([]byte, n)
	if _, err := f.ReadAt(blob, off); err != nil {
		return nil, err
	}
	return blob, nil
}

// fileSpans returns the blob ranges of file (at path), read on first use.
func (c *spanCache) fileSpans(path, file string) ([]span, error) {
	c.mu.Lock()
	spans, ok := c.spans[file]
	c.mu.Unlock()
	if ok {
		return spans, nil
	}
	v, err, _ := c.reads.Do(file, func() (any, error) {
		c.mu.Lock()
		spans, ok := c.spans[file]
		c.mu.Unlock()
		if ok { // found by a read that just finished
			return spans, nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		spans = objectSpans(data)
		c.mu.Lock()
		c.spans[file] = spans
		c.mu.Unlock()
		return spans, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]span), nil
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
