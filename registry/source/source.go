package source

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/internal/writelock"
	"github.com/operator-catalog/olmcat/registry"
	"github.com/operator-catalog/olmcat/registry/declcfgquery"
)

// Option configures Open.
type Option func(*options)

type options struct {
	cacheDir     string
	enforceCache bool
	logger       *slog.Logger
}

// WithCacheDir keeps a snapshot of a declarative config catalog's prepared
// answers in dir, so the next Open of unchanged files starts fast
// (declcfgquery.WithCacheDir). Ignored for sqlite files.
func WithCacheDir(dir string) Option { return func(o *options) { o.cacheDir = dir } }

// WithCacheIntegrity fails Open instead of rebuilding when the cache
// directory holds no snapshot of the catalog as it is
// (declcfgquery.WithCacheIntegrity).
func WithCacheIntegrity() Option { return func(o *options) { o.enforceCache = true } }

// WithLogger logs how the catalog was opened (cache use, sizes) to l.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// Open returns a Querier for the catalog at path and its kind: a directory
// is loaded as a declarative config, a sqlite file is opened read-only as
// a legacy index (manifests read on demand). The caller closes the Querier.
func Open(ctx context.Context, path string, opts ...Option) (registry.Querier, input.Kind, error) {
	in, err := input.Classify(path)
	if err != nil {
		return nil, "", fmt.Errorf("open catalog: %w", err)
	}
	q, err := OpenInput(ctx, in, opts...)
	if err != nil {
		return nil, "", err
	}
	return q, in.Kind, nil
}

// OpenInput is Open for an input already resolved (input.Resolve, or
// input.Classify for a local path), so that a caller that needs the kind
// first (to warn about sqlite, say) looks at the path once, and an image
// is served from what was extracted of it (in.Path). Only
// input.KindDeclcfg and input.KindSQLite can be served in-process.
func OpenInput(ctx context.Context, in *input.Input, opts ...Option) (registry.Querier, error) {
	o := options{}
	for _, opt := range opts {
		opt(&o)
	}
	if o.logger == nil {
		o.logger = slog.New(slog.DiscardHandler)
	}
	switch in.Kind {
	case input.KindDeclcfg:
		var dopts []declcfgquery.Option
		if o.cacheDir != "" {
			dopts = append(dopts, declcfgquery.WithCacheDir(o.cacheDir))
		}
		if o.enforceCache {
			dopts = append(dopts, declcfgquery.WithCacheIntegrity())
		}
		dopts = append(dopts, declcfgquery.WithLogger(o.logger))
		return declcfgquery.Load(ctx, in.Path, dopts...)
	case input.KindSQLite:
		return openSQLite(ctx, in.Path, o)
	default:
		return nil, fmt.Errorf("open catalog %s: neither a declarative config directory nor a sqlite index database", cmp.Or(in.Path, in.Ref))
	}
}

// ErrNoSQLite is OpenInput's error for a legacy sqlite index in a build
// without the sqlite backend (the slim build, tag "slim", of the images
// olmcat builds: they hold declarative configs only).
var ErrNoSQLite = errors.New("a legacy sqlite index, and this build has no sqlite backend")

// Fingerprint returns what a server watches to notice that the catalog
// in changed on disk (registry.WithWatch): the declcfgquery fingerprint
// of the directory, leaving out the cache directory when it lies inside,
// or of the sqlite file. While an olmcat writer holds the catalog's write
// lock it fails instead: the files may be half committed, and a reload
// must wait for the commit to be done.
func Fingerprint(in *input.Input, cacheDir string) func() (string, error) {
	return func() (string, error) {
		if h, ok := writelock.Held(in.Path); ok {
			return "", fmt.Errorf("a writer holds its write lock (%s)", h)
		}
		return declcfgquery.Fingerprint(in.Path, cacheDir)
	}
}
