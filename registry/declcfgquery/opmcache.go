package declcfgquery

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/registry/api"
)

// opmPackage, opmChannel and opmBundle are the records of opm's
// packages.json (its cPkg, cChannel and cBundle, with their JSON names:
// channel fields have none). opm answers GetPackage and the edge RPCs from
// them; description and icon are stored but never served.
type opmPackage struct {
	Name           string                `json:"name"`
	Description    string                `json:"description"`
	Icon           *opmIcon              `json:"icon"`
	DefaultChannel string                `json:"defaultChannel"`
	Channels       map[string]opmChannel // no tag: opm writes "Channels"
	Deprecation    *api.Deprecation      `json:"deprecation,omitempty"`
}

type opmIcon struct {
	Data      []byte `json:"base64data"`
	MediaType string `json:"mediatype"`
}

type opmChannel struct {
	Name        string
	Head        string
	Bundles     map[string]opmBundle
	Deprecation *api.Deprecation `json:"deprecation,omitempty"`
}

type opmBundle struct {
	Package  string   `json:"package"`
	Channel  string   `json:"channel"`
	Name     string   `json:"name"`
	Replaces string   `json:"replaces"`
	Skips    []string `json:"skips"`
}

// opmBundleFile is the cache file of a channel membership, as opm names it.
func opmBundleFile(cacheDir, pkg, channel, name string) string {
	return filepath.Join(cacheDir, opmJSONDir, fmt.Sprintf("%s_%s_%s.json", pkg, channel, name))
}

// opmMetaName is what opm allows as a schema or package in a metas path.
var opmMetaName = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9._-]*$`)

// Modes of the files writeOPMCache writes, set whatever the umask: they
// are part of the digest, and olmcat build's layers record exactly these.
const (
	opmCacheDirMode  = 0o755
	opmCacheFileMode = 0o644
)

// writeOPMCache writes q's answers for the catalog directory catalog as
// opm's JSON cache into cacheDir, replacing an opm cache there (as opm's
// rebuild does), and records the digest opm checks last. q must hold the
// catalog as it is on disk.
func writeOPMCache(ctx context.Context, q *Querier, catalog, cacheDir string) error {
	for _, old := range []string{opmDigestFile, opmJSONDir, opmPogrebDir} {
		if err := os.RemoveAll(filepath.Join(cacheDir, old)); err != nil {
			return fmt.Errorf("write opm cache: %w", err)
		}
	}
	if err := os.MkdirAll(filepath.Join(cacheDir, opmJSONDir), opmCacheDirMode); err != nil {
		return fmt.Errorf("write opm cache: %w", err)
	}
	pkgs, err := writeOPMBundles(ctx, q, cacheDir)
	if err != nil {
		return fmt.Errorf("write opm cache: %w", err)
	}
	if err := writeOPMMetas(ctx, catalog, cacheDir); err != nil {
		return fmt.Errorf("write opm cache: %w", err)
	}
	data, err := json.Marshal(pkgs)
	if err != nil {
		return fmt.Errorf("write opm cache: %w", err)
	}
	if err := writeCacheFile(filepath.Join(cacheDir, opmJSONDir, opmPackagesFile), data); err != nil {
		return fmt.Errorf("write opm cache: %w", err)
	}
	if err := chmodTree(filepath.Join(cacheDir, opmJSONDir)); err != nil {
		return fmt.Errorf("write opm cache: %w", err)
	}
	digest, err := opmJSONDigest(catalog, cacheDir)
	if err != nil {
		return fmt.Errorf("write opm cache: %w", err)
	}
	return writeCacheFile(filepath.Join(cacheDir, opmDigestFile), []byte(digest))
}

// writeOPMBundles writes one file per channel membership (the bundle with
// its manifests, replaces and skips, as opm converts it) and returns the
// package index.
func writeOPMBundles(ctx context.Context, q *Querier, cacheDir string) (map[string]opmPackage, error) {
	pkgs := map[string]opmPackage{}
	for _, p := range q.packageList() {
		op := opmPackage{Name: p.Name, DefaultChannel: p.DefaultChannelName, Channels: map[string]opmChannel{}, Deprecation: p.Deprecation}
		for _, c := range p.Channels {
			op.Channels[c.Name] = opmChannel{Name: c.Name, Head: c.CsvName, Bundles: map[string]opmBundle{}, Deprecation: c.Deprecation}
		}
		pkgs[p.Name] = op
	}
	written := map[string]string{}
	for i := range q.members {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, err := q.message(int32(i), true)
		if err != nil {
			return nil, err
		}
		if b.CsvJson, b.Object, err = q.src.manifests(q, q.members[i].Bundle); err != nil {
			return nil, err
		}
		who := fmt.Sprintf("package %q, channel %q, bundle %q", b.PackageName, b.ChannelName, b.CsvName)
		for _, s := range []string{b.PackageName, b.ChannelName, b.CsvName} {
			if strings.ContainsAny(s, `/\`) || s == "" {
				return nil, fmt.Errorf("%s: opm's cache cannot hold a name with a path separator", who)
			}
		}
		file := opmBundleFile(cacheDir, b.PackageName, b.ChannelName, b.CsvName)
		if other, dup := written[file]; dup {
			return nil, fmt.Errorf("%s and %s: opm's cache names both %s", other, who, filepath.Base(file))
		}
		written[file] = who
		data, err := json.Marshal(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", who, err)
		}
		if err := writeCacheFile(file, data); err != nil {
			return nil, err
		}
		pkgs[b.PackageName].Channels[b.ChannelName].Bundles[b.CsvName] = opmBundle{
			Package: b.PackageName, Channel: b.ChannelName, Name: b.CsvName, Replaces: b.Replaces, Skips: b.Skips}
	}
	return pkgs, nil
}

// writeOPMMetas writes the catalog's blobs of other schemas as opm does:
// re-encoded (keys sorted, no HTML escaping, a final newline), named by
// their FNV-1a 64, under metas/<schema>/<package>.
func writeOPMMetas(ctx context.Context, catalog, cacheDir string) error {
	// Package by package, bundles lean: memory stays bounded by the
	// largest package, as when the catalog was loaded.
	return declcfg.EachPackage(ctx, catalog, func(_ string, cfg *declcfg.DeclarativeConfig) error {
		return writeOPMMetaBlobs(cacheDir, cfg.Others)
	}, declcfg.WithLeanBundles())
}

// writeOPMMetaBlobs writes blobs of other schemas into opm's metas tree.
func writeOPMMetaBlobs(cacheDir string, others []declcfg.Meta) error {
	for _, m := range others {
		if !opmMetaName.MatchString(m.Schema) || (m.Package != "" && !opmMetaName.MatchString(m.Package)) {
			return fmt.Errorf("%s: opm's cache cannot hold schema %q of package %q", m.Origin, m.Schema, m.Package)
		}
		var v map[string]any
		if err := json.Unmarshal(m.Blob, &v); err != nil {
			return fmt.Errorf("%s: %w", m.Origin, err)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return fmt.Errorf("%s: %w", m.Origin, err)
		}
		dir := filepath.Join(cacheDir, opmJSONDir, opmMetasDir, m.Schema, m.Package)
		if err := os.MkdirAll(dir, opmCacheDirMode); err != nil {
			return err
		}
		h := fnv.New64a()
		h.Write(buf.Bytes())
		if err := writeCacheFile(filepath.Join(dir, fmt.Sprintf("%x.json", h.Sum64())), buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

func writeCacheFile(name string, data []byte) error {
	if err := os.WriteFile(name, data, opmCacheFileMode); err != nil {
		return err
	}
	return os.Chmod(name, opmCacheFileMode)
}

// chmodTree gives dir's directories and files the cache's modes.
func chmodTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.Chmod(p, opmCacheDirMode)
		}
		return os.Chmod(p, opmCacheFileMode)
	})
}
