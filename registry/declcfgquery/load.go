package declcfgquery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/operator-catalog/olmcat/internal/pathcheck"
	"github.com/operator-catalog/olmcat/internal/runtimetune"
)

// Option configures Load.
type Option func(*loadOptions)

type loadOptions struct {
	cacheDir     string
	enforceCache bool
	logger       *slog.Logger
}

// ErrCacheIntegrity is the error of a Load WithCacheIntegrity whose cache
// directory holds no cache of the catalog as it is on disk. It wraps
// fs.ErrNotExist too when there is no cache at all.
var ErrCacheIntegrity = errors.New("integrity check failed")

// WithCacheIntegrity makes Load with a cache directory fail with
// ErrCacheIntegrity instead of rebuilding when neither olmcat's snapshot
// nor opm's cache describes the catalog (opm serve's
// --cache-enforce-integrity: an image serves the cache it was built
// with, or nothing). Nothing is written then.
func WithCacheIntegrity() Option { return func(o *loadOptions) { o.enforceCache = true } }

// WithCacheDir keeps the serve cache in dir (created if missing): opm
// v1.73's JSON cache, which opm serve --cache-dir accepts and checks with
// its own digest, and olmcat's snapshot of the index in the sibling
// SnapshotDir(dir), where opm does not look. Load restores the snapshot
// when it was written for exactly the same catalog files (paths, sizes,
// modification times and contents), else opm's cache when its digest
// matches the catalog (one opm or olmcat wrote); else it builds from the
// files and writes both, replacing a stale opm cache as opm does. A
// damaged cache is never trusted. A directory holding anything else is
// refused, as opm refuses it; other cache problems are reported in Stats
// and the log, and never fail Load.
//
// Neither holds what the index does not need in memory: a Querier
// restored from the snapshot reads manifests from the catalog files, one
// restored from opm's cache from its bundle files, per call.
func WithCacheDir(dir string) Option { return func(o *loadOptions) { o.cacheDir = dir } }

// WithLogger logs how the Querier was built (cache hit or miss, sizes,
// duration) to l.
func WithLogger(l *slog.Logger) Option { return func(o *loadOptions) { o.logger = l } }

// Load reads the declarative config directory dir, validates it into a
// model and prepares a Querier from it, or restores the Querier from the
// cache directory when one is configured and up to date.
func Load(ctx context.Context, dir string, opts ...Option) (*Querier, error) {
	o := loadOptions{}
	for _, opt := range opts {
		opt(&o)
	}
	if o.logger == nil {
		o.logger = slog.New(slog.DiscardHandler)
	}
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("load catalog: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("load catalog %s: not a directory", dir)
	}
	start := time.Now()
	var q *Querier
	var restored bool
	if o.cacheDir == "" {
		q, err = loadFromFiles(ctx, dir)
	} else {
		q, restored, err = loadWithCache(ctx, dir, o, start)
	}
	if err != nil {
		return nil, err
	}
	// Loading or restoring peaks above what the Querier keeps: the
	// program's tuner (if any) returns that peak to the OS.
	runtimetune.ReleaseLoadPeak(ctx)
	if restored {
		return q, nil
	}
	o.logger.Info("catalog loaded", "dir", dir, "packages", q.stats.Packages, "channels", q.stats.Channels,
		"bundles", q.stats.Bundles, "channelEntries", q.stats.ChannelEntries, "duration", time.Since(start))
	return q, nil
}

// loadWithCache restores the Querier from opm's cache in o.cacheDir when
// its digest describes dir as it is (restored), else builds it from the
// files and writes opm's cache there (what opm serve does). A cache that
// cannot be used or written is logged and recorded in the stats, and
// fails Load only when enforced or when the directory holds something
// else than a cache (opm refuses it too: nothing there is replaced).
func loadWithCache(ctx context.Context, dir string, o loadOptions, start time.Time) (q *Querier, restored bool, err error) {
	snapDir := SnapshotDir(o.cacheDir)
	// Both are written: never into the catalog (opm's digest of the
	// catalog would hold its own cache, and its files would be read as
	// catalog files). A path that cannot be resolved is a cache problem
	// like any other, reported when the cache is used.
	if err := pathcheck.Separate("cache directory", o.cacheDir, dir); errors.Is(err, pathcheck.ErrOverlap) {
		return nil, false, err
	}
	if err := pathcheck.Separate("snapshot directory", snapDir, dir); errors.Is(err, pathcheck.ErrOverlap) {
		return nil, false, err
	}
	key, err := catalogKey(dir)
	if err != nil {
		return nil, false, err
	}
	var cacheErr error
	q, err = readCache(snapDir, key, dir)
	format := "olmcat snapshot"
	if err != nil {
		if !errors.Is(err, errCacheMiss) {
			cacheErr = fmt.Errorf("snapshot %s: %w", snapDir, err)
			o.logger.Warn("olmcat snapshot unusable", "snapshot", snapDir, "error", err)
		}
		q, format, err = restoreOPMCache(dir, o.cacheDir)
	}
	switch {
	case err == nil:
		q.stats.FromCache = true
		if cacheErr != nil {
			q.stats.CacheError = cacheErr.Error()
		}
		o.logger.Info("catalog restored from cache", "dir", dir, "cache", o.cacheDir, "format", format,
			"packages", q.stats.Packages, "bundles", q.stats.Bundles, "duration", time.Since(start))
		return q, true, nil
	case o.enforceCache:
		return nil, false, fmt.Errorf("%w: cache %s: %w", ErrCacheIntegrity, o.cacheDir, err)
	case errors.Is(err, errCacheForeign):
		return nil, false, fmt.Errorf("cache %s: %w", o.cacheDir, err)
	case errors.Is(err, errCacheMiss):
		o.logger.Info("no cache for this catalog content, building", "cache", o.cacheDir, "reason", err)
	default:
		cacheErr = errors.Join(cacheErr, err)
		o.logger.Warn("cache unusable, rebuilding", "cache", o.cacheDir, "error", err)
	}
	if q, err = loadFromFiles(ctx, dir); err != nil {
		return nil, false, err
	}
	writeErr := writeOPMCacheOf(ctx, q, dir, o.cacheDir, key)
	if writeErr == nil {
		writeErr = writeCache(snapDir, key, q)
	}
	if writeErr == nil {
		q.stats.CacheWritten = true
	} else {
		o.logger.Warn("cache not written", "cache", o.cacheDir, "error", writeErr)
		cacheErr = errors.Join(cacheErr, writeErr)
	}
	if cacheErr != nil {
		q.stats.CacheError = cacheErr.Error()
	}
	return q, false, nil
}

// SnapshotDir is where olmcat keeps its own snapshot of the index beside
// the serve cache directory cacheDir, which holds opm's cache: the
// sibling directory <cacheDir>.olmcat, where opm does not look (OLM's
// extractContent copies only cacheDir; opm refuses a cache directory with
// anything but its own cache in it). Restoring the snapshot is many times
// faster than reading opm's cache (BenchmarkRestore10k).
func SnapshotDir(cacheDir string) string {
	return filepath.Clean(cacheDir) + ".olmcat"
}
