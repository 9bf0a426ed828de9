package source

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/operator-catalog/olmcat/legacy"
	"github.com/operator-catalog/olmcat/registry"
	"github.com/operator-catalog/olmcat/registry/declcfgquery"
	"github.com/operator-catalog/olmcat/registry/legacyquery"
)

// Kind is the kind of catalog a path holds.
type Kind string

// The kinds Open understands.
const (
	// KindDeclcfg is a declarative config (file-based catalog) directory.
	KindDeclcfg Kind = "declcfg"
	// KindSQLite is a legacy sqlite index database file.
	KindSQLite Kind = "sqlite"
)

// Option configures Open.
type Option func(*options)

type options struct {
	cacheDir string
	logger   *slog.Logger
}

// WithCacheDir keeps a snapshot of a declarative config catalog's prepared
// answers in dir, so the next Open of unchanged files starts fast
// (declcfgquery.WithCacheDir). Ignored for sqlite files.
func WithCacheDir(dir string) Option { return func(o *options) { o.cacheDir = dir } }

// WithLogger logs how the catalog was opened (cache use, sizes) to l.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// Open returns a Querier for the catalog at path and its kind: a directory
// is loaded as a declarative config, a sqlite file is opened read-only as
// a legacy index (manifests read on demand). The caller closes the Querier.
func Open(ctx context.Context, path string, opts ...Option) (registry.Querier, Kind, error) {
	o := options{}
	for _, opt := range opts {
		opt(&o)
	}
	if o.logger == nil {
		o.logger = slog.New(slog.DiscardHandler)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, "", fmt.Errorf("open catalog: %w", err)
	}
	if st.IsDir() {
		var dopts []declcfgquery.Option
		if o.cacheDir != "" {
			dopts = append(dopts, declcfgquery.WithCacheDir(o.cacheDir))
		}
		dopts = append(dopts, declcfgquery.WithLogger(o.logger))
		q, err := declcfgquery.Load(ctx, path, dopts...)
		if err != nil {
			return nil, "", err
		}
		return q, KindDeclcfg, nil
	}
	isDB, err := legacy.IsSQLiteFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("open catalog: %w", err)
	}
	if !isDB {
		return nil, "", fmt.Errorf("open catalog %s: neither a declarative config directory nor a sqlite index database", path)
	}
	if o.cacheDir != "" {
		o.logger.Info("cache directory not used for sqlite catalogs", "path", path)
	}
	db, err := legacy.Open(ctx, path, legacy.SkipManifests())
	if err != nil {
		return nil, "", fmt.Errorf("open sqlite catalog %s: %w", path, err)
	}
	q, err := legacyquery.New(ctx, db)
	if err != nil {
		db.Close()
		return nil, "", fmt.Errorf("index sqlite catalog %s: %w", path, err)
	}
	o.logger.Info("opened sqlite catalog", "path", path, "level", db.Level())
	return q, KindSQLite, nil
}
