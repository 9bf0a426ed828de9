package declcfgquery

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"syscall"

	"golang.org/x/sync/errgroup"

	"github.com/operator-catalog/olmcat/internal/writelock"
)

// catalogKey digests the catalog directory: every regular file's
// slash-separated relative path, size, modification time and content
// checksum, in path order, plus the snapshot format version. The
// content checksum is CRC-32C, which the CPU computes at memory speed: the
// key tells a snapshot of other content (files edited, even keeping their
// size and time), it is not a defence against a forged catalog (the
// cache directory is the operator's own).
func catalogKey(dir string) ([32]byte, error) {
	files, err := catalogFiles(dir, "")
	if err != nil {
		return [32]byte{}, fmt.Errorf("digest catalog %s: %w", dir, err)
	}
	// Checksum contents in parallel: on a warm start this is most of the work.
	sums := make([][]byte, len(files))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, f := range files {
		g.Go(func() error {
			h := crc32.New(castagnoli)
			if err := hashFile(h, f.path); err != nil {
				return err
			}
			sums[i] = h.Sum(nil)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return [32]byte{}, err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s%d\n", cacheMagic, cacheVersion)
	for i, f := range files {
		fmt.Fprintf(h, "%q %d %d %x\n", f.rel, f.info.Size(), f.info.ModTime().UnixNano(), sums[i])
	}
	var key [32]byte
	copy(key[:], h.Sum(nil))
	return key, nil
}

// catalogFile is a regular file of a catalog directory, as the loader
// reads it (symbolic links followed).
type catalogFile struct {
	rel  string // slash-separated, relative to the directory
	path string
	info fs.FileInfo
}

// catalogFiles lists dir's regular files in path order, leaving out the
// directory skip (the cache directory, when it lies inside the catalog).
func catalogFiles(dir, skip string) ([]catalogFile, error) {
	var files []catalogFile
	absSkip := ""
	if skip != "" {
		if a, err := filepath.Abs(skip); err == nil {
			absSkip = a
		}
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if absSkip != "" {
				if a, err := filepath.Abs(path); err == nil && a == absSkip {
					return filepath.SkipDir
				}
			}
			return nil
		}
		info, err := os.Stat(path) // follow symlinks to what the loader reads
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		files = append(files, catalogFile{rel: filepath.ToSlash(rel), path: path, info: info})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(files, func(i, j int) bool { return files[i].rel < files[j].rel })
	return files, nil
}

// Fingerprint digests what the catalog directory dir is made of, without
// reading any content: the directory's own device and inode, and every
// regular file's path, size, modification and change times, device and
// inode (skip, a cache directory inside it, left out, and the write lock file a
// writer may take inside the directory). It changes when a file is
// added, removed, renamed, rewritten (even keeping its size and
// modification time: the change time moves) or replaced (a new inode),
// and when the directory itself is replaced; it is cheap enough to take
// every second (a stat per file). A server watches it to notice that
// what it serves changed (registry.WithWatch).
func Fingerprint(dir, skip string) (string, error) {
	root, err := os.Stat(dir)
	if err != nil {
		return "", err
	}
	files, err := catalogFiles(dir, skip)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", statKey(root))
	for _, f := range files {
		if f.rel == writelock.InsideName {
			continue // taken and released by writers that may write nothing
		}
		fmt.Fprintf(h, "%q %d %d %s\n", f.rel, f.info.Size(), f.info.ModTime().UnixNano(), statKey(f.info))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// statKey is a file's device, inode and change time.
func statKey(info fs.FileInfo) string {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d:%d:%d.%d", st.Dev, st.Ino, st.Ctim.Sec, st.Ctim.Nsec)
}

func hashFile(h hash.Hash, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("digest catalog: %w", err)
	}
	defer f.Close()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("digest catalog: read %s: %w", path, err)
	}
	return nil
}
