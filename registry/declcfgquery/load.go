package declcfgquery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"time"
)

// Option configures Load.
type Option func(*loadOptions)

type loadOptions struct {
	cacheDir     string
	enforceCache bool
	logger       *slog.Logger
}

// ErrCacheIntegrity is the error of a Load WithCacheIntegrity whose cache
// directory holds no snapshot of the catalog as it is on disk. It wraps
// fs.ErrNotExist too when there is no snapshot file at all.
var ErrCacheIntegrity = errors.New("integrity check failed")

// WithCacheIntegrity makes Load with a cache directory fail with
// ErrCacheIntegrity instead of rebuilding when the snapshot is absent,
// stale or damaged (opm serve's --cache-enforce-integrity: an image
// serves the cache it was built with, or nothing).
func WithCacheIntegrity() Option { return func(o *loadOptions) { o.enforceCache = true } }

// WithCacheDir keeps a snapshot of the prepared answers in dir (created if
// missing). Load restores it instead of loading the catalog when it was
// written for exactly the same catalog files (paths, sizes, modification
// times and contents); a missing, stale or damaged snapshot is rebuilt and
// rewritten, never trusted. Cache problems are reported in Stats and the
// log, and never fail Load.
//
// The snapshot holds the index only, never manifests: a restored Querier
// reads them from the catalog files per call, exactly as one built from
// the files does.
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
	// Loading or restoring peaks above what the Querier keeps (the
	// decoded packages, the snapshot, the builder's maps) and the runtime
	// would hold on to that peak for minutes: a server's resident size
	// should be what it serves.
	debug.FreeOSMemory()
	if restored {
		return q, nil
	}
	o.logger.Info("catalog loaded", "dir", dir, "packages", q.stats.Packages, "channels", q.stats.Channels,
		"bundles", q.stats.Bundles, "channelEntries", q.stats.ChannelEntries, "duration", time.Since(start))
	return q, nil
}

// loadWithCache restores the Querier from the snapshot in o.cacheDir when
// it describes dir's files (restored), else builds it from the files and
// writes the snapshot. A cache that cannot be used or written is logged
// and recorded in the stats, never an error.
func loadWithCache(ctx context.Context, dir string, o loadOptions, start time.Time) (q *Querier, restored bool, err error) {
	key, err := catalogKey(dir, o.cacheDir)
	if err != nil {
		return nil, false, err
	}
	var cacheErr error
	q, err = readCache(o.cacheDir, key, dir)
	switch {
	case err != nil && o.enforceCache:
		return nil, false, fmt.Errorf("%w: cache %s: %w", ErrCacheIntegrity, o.cacheDir, err)
	case err == nil:
		q.stats.FromCache = true
		o.logger.Info("catalog restored from cache", "dir", dir, "cache", o.cacheDir, "key", keyString(key),
			"packages", q.stats.Packages, "bundles", q.stats.Bundles, "duration", time.Since(start))
		return q, true, nil
	case !errors.Is(err, errCacheMiss):
		cacheErr = err
		o.logger.Warn("cache unusable, rebuilding", "cache", o.cacheDir, "error", err)
	default:
		o.logger.Info("no cache for this catalog content, building", "cache", o.cacheDir, "key", keyString(key))
	}
	if q, err = loadFromFiles(ctx, dir); err != nil {
		return nil, false, err
	}
	// Only snapshot what was read: if the files changed while loading,
	// the key no longer describes this Querier.
	var writeErr error
	after, err := catalogKey(dir, o.cacheDir)
	switch {
	case err != nil:
		writeErr = err
	case after != key:
		writeErr = errors.New("catalog changed while loading")
	default:
		writeErr = writeCache(o.cacheDir, key, q)
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
