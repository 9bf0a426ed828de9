package declcfgquery

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/operator-catalog/olmcat/internal/jsonscan"
	"github.com/operator-catalog/olmcat/registry/api"
)

// opmRecords reads a bundle of opm's cache by channel membership.
type opmRecords interface {
	bundle(pkg, channel, name string) (*api.Bundle, error)
}

// fromOPMCache builds a Querier from opm's package index and bundle
// records, without the catalog: opm stores every answer (each
// membership's bundle with manifests, replaces and skips; each channel's
// head). The index keeps no manifests: they are read from the records per
// call (src), as they are read from the catalog files without a cache.
func fromOPMCache(pkgs map[string]opmPackage, recs opmRecords, src manifestSource, keep func(i int32, b *api.Bundle)) (*Querier, error) {
	ib := newIndexBuilder()
	for _, pn := range sortedNames(pkgs) {
		p := pkgs[pn]
		if p.Name != pn {
			return nil, fmt.Errorf("package index: package %q is recorded as %q", pn, p.Name)
		}
		ap := &api.Package{Name: pn, DefaultChannelName: p.DefaultChannel, Deprecation: opmDeprecation(p.Deprecation)}
		var keys [][2]string
		for _, cn := range sortedNames(p.Channels) {
			c := p.Channels[cn]
			ap.Channels = append(ap.Channels, &api.Channel{Name: cn, CsvName: c.Head, Deprecation: opmDeprecation(c.Deprecation)})
			for _, bn := range sortedNames(c.Bundles) {
				keys = append(keys, [2]string{cn, bn})
			}
		}
		bundles, err := readOPMBundles(recs, pn, keys)
		if err != nil {
			return nil, err
		}
		if err := ib.addPackage(ap, bundles, func(i int32, b *api.Bundle) error {
			keep(i, b)
			return nil
		}); err != nil {
			return nil, err
		}
	}
	return ib.finish(src)
}

// readOPMBundles reads a package's membership records (channel, bundle
// name) in parallel: decoding them is most of a start from opm's cache.
func readOPMBundles(recs opmRecords, pkg string, keys [][2]string) ([]*api.Bundle, error) {
	bundles := make([]*api.Bundle, len(keys))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, k := range keys {
		g.Go(func() error {
			b, err := recs.bundle(pkg, k[0], k[1])
			if err != nil {
				return fmt.Errorf("package %q, channel %q, bundle %q: %w", pkg, k[0], k[1], err)
			}
			if b.PackageName != pkg || b.ChannelName != k[0] || b.CsvName != k[1] {
				return fmt.Errorf("package %q, channel %q, bundle %q: the record holds package %q, channel %q, bundle %q",
					pkg, k[0], k[1], b.PackageName, b.ChannelName, b.CsvName)
			}
			bundles[i] = b
			return nil
		})
	}
	return bundles, g.Wait()
}

func opmDeprecation(d *api.Deprecation) *api.Deprecation {
	if d == nil {
		return nil
	}
	return deprecation(d.Message)
}

// opmJSONSource reads opm's JSON cache: the package index, and a bundle
// file per channel membership (manifests are read again per call from
// the file of the bundle's first membership).
type opmJSONSource struct {
	dir   string
	files []string // by bundle index
}

func (s *opmJSONSource) bundle(pkg, channel, name string) (*api.Bundle, error) {
	file := opmBundleFile(s.dir, pkg, channel, name)
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var b opmIndexedBundle
	if err := decodeIndexed(data, &b); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return &api.Bundle{CsvName: b.CsvName, PackageName: b.PackageName, ChannelName: b.ChannelName, BundlePath: b.BundlePath,
		ProvidedApis: b.ProvidedApis, RequiredApis: b.RequiredApis, Version: b.Version, SkipRange: b.SkipRange,
		Dependencies: b.Dependencies, Properties: b.Properties, Replaces: b.Replaces, Skips: b.Skips, Deprecation: b.Deprecation}, nil
}

// opmIndexedBundle is what the index takes from a bundle file: every
// field but the manifests (csvJson, object), which decoding skips
// without copying them (manifests reads them per call).
type opmIndexedBundle struct {
	CsvName      string                  `json:"csvName"`
	PackageName  string                  `json:"packageName"`
	ChannelName  string                  `json:"channelName"`
	BundlePath   string                  `json:"bundlePath"`
	ProvidedApis []*api.GroupVersionKind `json:"providedApis"`
	RequiredApis []*api.GroupVersionKind `json:"requiredApis"`
	Version      string                  `json:"version"`
	SkipRange    string                  `json:"skipRange"`
	Dependencies []*api.Dependency       `json:"dependencies"`
	Properties   []*api.Property         `json:"properties"`
	Replaces     string                  `json:"replaces"`
	Skips        []string                `json:"skips"`
	Deprecation  *api.Deprecation        `json:"deprecation"`
}

// decodeIndexed decodes a bundle file into b as json.Unmarshal does, but
// only the fields b has: the file is checked to be valid JSON in one
// scan (jsonscan, at memory speed over the long manifest strings), and
// only the other fields are handed to encoding/json. The manifests are
// most of a file's bytes.
func decodeIndexed(data []byte, b *opmIndexedBundle) error {
	small := append(make([]byte, 0, 4096), '{')
	valid, err := jsonscan.ValidFields(data, func(key, value []byte) error {
		// encoding/json matches keys without case: neither of these
		// names any field of b, however spelled.
		if bytes.EqualFold(key, []byte("csvJson")) || bytes.EqualFold(key, []byte("object")) {
			return nil
		}
		if len(small) > 1 {
			small = append(small, ',')
		}
		k, err := json.Marshal(string(key))
		if err != nil {
			return err
		}
		small = append(append(append(small, k...), ':'), value...)
		return nil
	})
	if err != nil {
		return err
	}
	if !valid {
		return errors.New("invalid JSON")
	}
	return json.Unmarshal(append(small, '}'), b)
}

func (s *opmJSONSource) manifests(q *Querier, i int32) (string, []string, error) {
	if int(i) >= len(s.files) {
		return "", nil, nil
	}
	data, err := os.ReadFile(s.files[i])
	if err != nil {
		return "", nil, fmt.Errorf("read opm cache: %w", err)
	}
	var b api.Bundle
	if err := json.Unmarshal(data, &b); err != nil {
		return "", nil, fmt.Errorf("read opm cache %s: %w", s.files[i], err)
	}
	return b.CsvJson, b.Object, nil
}

// readOPMJSONCache builds a Querier from opm's JSON cache in cacheDir.
// The caller has checked its digest.
func readOPMJSONCache(cacheDir string) (*Querier, error) {
	data, err := os.ReadFile(filepath.Join(cacheDir, opmJSONDir, opmPackagesFile))
	if err != nil {
		return nil, fmt.Errorf("read opm cache: %w", err)
	}
	var pkgs map[string]opmPackage
	if err := json.Unmarshal(data, &pkgs); err != nil {
		return nil, fmt.Errorf("read opm cache: %s: %w", opmPackagesFile, err)
	}
	src := &opmJSONSource{dir: cacheDir}
	q, err := fromOPMCache(pkgs, src, src, func(i int32, b *api.Bundle) {
		for int(i) >= len(src.files) {
			src.files = append(src.files, "")
		}
		src.files[i] = opmBundleFile(cacheDir, b.PackageName, b.ChannelName, b.CsvName)
	})
	if err != nil {
		return nil, fmt.Errorf("read opm cache %s: %w", cacheDir, err)
	}
	return q, nil
}

// errCacheForeign means the cache directory holds something other than a
// cache: opm refuses to start on it ("unexpected contents"), and olmcat
// neither serves nor replaces it.
var errCacheForeign = errors.New("cache directory has unexpected contents")

// restoreOPMCache builds the Querier from the opm cache in cacheDir when
// its digest describes the catalog directory dir as it is, naming the
// format it read. It returns an errCacheMiss error when there is no cache
// (wrapping fs.ErrNotExist) or it is for other content, an
// errCacheForeign error when the directory holds anything else, and
// another error when the cache is damaged.
func restoreOPMCache(dir, cacheDir string) (*Querier, string, error) {
	switch format := opmCacheFormat(cacheDir); format {
	case "json":
		want, err := readOPMDigest(filepath.Join(cacheDir, opmDigestFile))
		if err != nil {
			return nil, format, fmt.Errorf("read opm cache digest: %w", err)
		}
		// The digest and the index are each a read of the whole cache:
		// done at once, the index is used only if the digest matches.
		var got string
		var digestErr error
		done := make(chan struct{})
		go func() {
			defer close(done)
			got, digestErr = opmJSONDigest(dir, cacheDir)
		}()
		q, err := readOPMJSONCache(cacheDir)
		<-done
		switch {
		case digestErr != nil:
			return nil, format, digestErr
		case want != got:
			return nil, format, fmt.Errorf("%w: the cache reports digest %q, but the catalog and cache give %q", errCacheMiss, want, got)
		}
		return q, format, err
	case opmPogrebDir:
		return restorePogrebCache(dir, cacheDir)
	}
	entries, err := os.ReadDir(cacheDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, "", fmt.Errorf("read cache directory: %w", err)
	}
	var names, partial []string
	for _, e := range entries {
		switch e.Name() {
		case cacheFile: // an older olmcat's snapshot: replaced
		case opmJSONDir, opmDigestFile, opmPogrebDir:
			partial = append(partial, e.Name())
		default:
			names = append(names, e.Name())
		}
	}
	if len(names) > 0 {
		return nil, "", fmt.Errorf("%w: %s", errCacheForeign, strings.Join(names, ","))
	}
	if len(partial) > 0 { // a write that did not finish (the digest comes last)
		return nil, "", fmt.Errorf("%w: an incomplete opm cache (%s)", errCacheMiss, strings.Join(partial, ","))
	}
	return nil, "", fmt.Errorf("%w: %w", errCacheMiss, fs.ErrNotExist)
}

// writeOPMCacheOf writes opm's cache of q, built from the catalog
// directory dir whose catalogKey was key before it was read, into
// cacheDir. If the catalog changed meanwhile, the digest is not written
// (the cache is not valid for any content) and that is the error.
func writeOPMCacheOf(ctx context.Context, q *Querier, dir, cacheDir string, key [32]byte) error {
	if err := os.MkdirAll(cacheDir, opmCacheDirMode); err != nil {
		return fmt.Errorf("create cache dir: %w", err)
	}
	if err := os.Remove(filepath.Join(cacheDir, cacheFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := writeOPMCache(ctx, q, dir, cacheDir); err != nil {
		return err
	}
	after, err := catalogKey(dir)
	if err == nil && after != key {
		err = errors.New("catalog changed while loading")
	}
	if err != nil {
		return errors.Join(err, os.Remove(filepath.Join(cacheDir, opmDigestFile)))
	}
	return nil
}
