package declcfgquery

import (
	"archive/tar"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// opm v1.73's JSON serve cache (the "json" backend of its pkg/cache), the
// one format opm's serve --cache-dir reads that a file tree can hold
// without opm's database library:
//
//	<cacheDir>/digest                  the digest below, as lowercase hex
//	<cacheDir>/cache/packages.json     the package index (opmPackage by name)
//	<cacheDir>/cache/<pkg>_<channel>_<bundle>.json
//	                                   one api.Bundle per channel membership,
//	                                   with manifests, replaces and skips
//	<cacheDir>/cache/metas/<schema>/<pkg>/<fnv64a of blob>.json
//	                                   blobs of other schemas, re-encoded
//
// opm accepts a cache directory only when it holds this (a cache/
// directory and a digest file) or its pogreb.v1/ database; anything else
// in a non-empty directory is "unexpected contents" and fatal.
const (
	opmDigestFile   = "digest"
	opmJSONDir      = "cache"
	opmPackagesFile = "packages.json"
	opmMetasDir     = "metas"
	opmPogrebDir    = "pogreb.v1"
)

// opmJSONDigest is the digest opm v1.73 stores in, and with
// --cache-enforce-integrity checks against, a JSON cache's digest file:
// FNV-1a 64 over two tar streams, the catalog directory's and then the
// cache/ directory's, each as Go's archive/tar writes fs.WalkDir's entries
// (lexical order, the root "." included, symbolic links left out) with
// headers from the files' own info (so their permission bits count) but
// owner, names of owner and group and every time cleared, each header
// named by its slash path from the walked root. A missing cache/ adds
// nothing.
func opmJSONDigest(catalog, cacheDir string) (string, error) {
	h := fnv.New64a()
	buf := make([]byte, 32*1024)
	if err := opmTar(h, os.DirFS(catalog), buf); err != nil {
		return "", fmt.Errorf("digest catalog %s: %w", catalog, err)
	}
	if err := opmTar(h, os.DirFS(filepath.Join(cacheDir, opmJSONDir)), buf); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("digest cache %s: %w", cacheDir, err)
	}
	return fmt.Sprintf("%x", h.Sum(nil)), nil
}

// opmTar writes fsys to w as the tar stream opm digests. On an error
// nothing more is written (a missing root writes nothing at all).
func opmTar(w io.Writer, fsys fs.FS, buf []byte) error {
	tw := tar.NewWriter(w)
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		h, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		h.Uid, h.Gid, h.Uname, h.Gname = 0, 0, "", ""
		h.AccessTime, h.ChangeTime, h.ModTime = time.Time{}, time.Time{}, time.Time{}
		h.Name = path
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if d.IsDir() {
			return nil
		}
		f, err := fsys.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if _, err := io.CopyBuffer(tw, f, buf); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return tw.Close()
}

// opmCacheFormat names the opm cache format dir holds: "json",
// "pogreb.v1", or "" for none (an absent or empty directory, or other
// contents, which opm refuses).
func opmCacheFormat(dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var hasDir, hasDigest bool
	for _, e := range entries {
		switch {
		case e.IsDir() && e.Name() == opmPogrebDir:
			return opmPogrebDir // opm prefers it when both are present
		case e.IsDir() && e.Name() == opmJSONDir:
			hasDir = true
		case e.Name() == opmDigestFile:
			hasDigest = true
		}
	}
	if hasDir && hasDigest {
		return "json"
	}
	return ""
}

// readOPMDigest is the digest recorded in a digest file (opm trims
// surrounding white space).
func readOPMDigest(file string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}
