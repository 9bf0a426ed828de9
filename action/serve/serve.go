// Package serve is the serving verb of the action layer (see package
// action for the conventions it follows): Serve, the workflow of olmcat
// serve and of opm's serve and registry serve. It is a package of its
// own, not a file of package action, because the slim build (the binary
// of the images olmcat builds, which serves declarative configs and
// links no sqlite library) runs it: package action reads sqlite indexes
// for its other verbs, and linking it would grow that binary by the
// sqlite library.
package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/internal/pathcheck"
	"github.com/operator-catalog/olmcat/internal/runtimetune"
	"github.com/operator-catalog/olmcat/registry"
	"github.com/operator-catalog/olmcat/registry/source"
)

// Serve serves a catalog with the registry gRPC API, health and
// reflection until its context ends: the port is bound first (health
// NOT_SERVING while the catalog loads), then the catalog is loaded,
// with the serve cache when there is one, and served.
type Serve struct {
	// Catalog is what is served, as given: a declarative config
	// directory, a legacy sqlite index or a catalog image.
	Catalog string
	// Open resolves Catalog (input.Resolve, pulling an image with the
	// program's image options and refusing a bundle); its errors are
	// returned as they are. Serve closes the input.
	Open func(ctx context.Context, ref string) (*input.Input, error)
	// OnSQLite, if set, is told that Catalog is a legacy sqlite index
	// before the port is bound; its error stops the run (the slim build
	// serves no sqlite index; the full one warns that it is deprecated).
	OnSQLite func(ctx context.Context, in *input.Input) error
	// Port is the TCP port the gRPC API is served on (0 picks a free
	// one); NoGRPC serves none (only the catalogd HTTP API).
	Port   int
	NoGRPC bool
	// HTTPAddr, if set, is the address ([host]:port) catalogd's HTTP API
	// is also served on (package catalogdhttp), the catalog named
	// CatalogName there ("": the base name of the catalog's directory,
	// file or image repository, made a DNS-1123 name).
	HTTPAddr    string
	CatalogName string
	// CacheDir keeps the serve cache of a declarative config (opm's and
	// olmcat's snapshot beside it) between runs; "" keeps none. With
	// CacheIntegrity a cache that is not the catalog's as it is fails the
	// load instead of being rebuilt.
	CacheDir       string
	CacheIntegrity bool
	// CacheOnly loads the catalog (writing or checking the cache) and
	// returns without serving.
	CacheOnly bool
	// HoldOnLoadError keeps serving, NOT_SERVING with the reason, when
	// the catalog does not open or load (until the context ends, when
	// Run returns the error) instead of returning at once.
	HoldOnLoadError bool
	// WatchInterval is how often the served files are checked for
	// changes (0: never); Reload loads a changed catalog in the
	// background and swaps it in, where the default serves NOT_SERVING.
	WatchInterval time.Duration
	Reload        bool
	// Limits bound the server's clients (registry.WithLimits).
	Limits registry.Limits
	// Logger gets the server's log (required: a server runs unattended,
	// and its log is what tells why it does not serve).
	Logger *slog.Logger
	// StartProfiler, if set, starts a profile of the run once the
	// catalog is opened, before the port is bound.
	StartProfiler func(ctx context.Context) (Profiler, error)
}

// Profiler is a profile of a serve run: Ready is called once the
// catalog is served, Stop when Run returns.
type Profiler interface {
	Ready()
	Stop()
}

// Result is what a Serve did (nothing more to tell than that it
// stopped).
type Result struct{}

// Run opens the catalog, binds the port and serves until ctx ends.
func (s Serve) Run(ctx context.Context) (Result, error) {
	logger := s.Logger
	if s.CacheDir != "" {
		// The cache is written there: never into the catalog.
		if err := pathcheck.Separate("cache directory", s.CacheDir, s.Catalog); err != nil {
			return Result{}, err
		}
	}
	in, err := s.Open(ctx, s.Catalog)
	if err == nil && in.Kind == input.KindSQLite && s.OnSQLite != nil {
		if err = s.OnSQLite(ctx, in); err != nil {
			in.Close()
		}
	}
	if err != nil && !s.HoldOnLoadError {
		return Result{}, err
	}
	var opts []registry.Option
	// A catalog that did not open is served as NOT_SERVING with the
	// reason, like one that failed to load.
	load := func(context.Context) (registry.Querier, error) { return nil, err }
	if err == nil {
		defer in.Close()
		if in.Kind == input.KindDeclcfg {
			runtimetune.Enter(ctx, runtimetune.ServeDeclcfg)
		}
		// A declarative config is loaded with the serve cache (opm's,
		// which olmcat writes and reads in both of opm's formats, and
		// olmcat's snapshot beside it) and, when asked, its integrity
		// check.
		srcOpts := []source.Option{source.WithCacheDir(s.CacheDir), source.WithLogger(logger)}
		if s.CacheIntegrity {
			srcOpts = append(srcOpts, source.WithCacheIntegrity())
		}
		load = func(ctx context.Context) (registry.Querier, error) { return source.OpenInput(ctx, in, srcOpts...) }
		if s.CacheOnly {
			// opm serve --cache-only, the step of opm's Dockerfile that
			// pre-populates an image's cache: loading writes or checks it.
			q, err := load(ctx)
			if err != nil {
				return Result{}, err
			}
			logger.Info("cache ready; not serving (asked for the cache only)", "catalog", s.Catalog)
			return Result{}, q.Close()
		}
		opts = append(opts, registry.WithLimits(s.Limits))
		if s.WatchInterval > 0 {
			opts = append(opts, registry.WithWatch(source.Fingerprint(in, s.CacheDir), s.WatchInterval, s.Reload))
		}
	}
	if s.HoldOnLoadError {
		opts = append(opts, registry.WithHoldOnLoadError())
	}
	return Result{}, s.serveAll(ctx, in, err, load, logger, opts)
}

// serveAll serves the gRPC API, the catalogd HTTP API or both until ctx
// ends or one of them fails (in, nil when the catalog did not open with
// openErr, is what they serve).
func (s *Serve) serveAll(ctx context.Context, in *input.Input, openErr error, load func(context.Context) (registry.Querier, error), logger *slog.Logger, opts []registry.Option) error {
	if s.HTTPAddr == "" {
		if s.NoGRPC {
			return errors.New("nothing to serve: neither the gRPC API nor the catalogd HTTP API")
		}
		return s.serve(ctx, in, load, logger, opts)
	}
	lis, err := s.listenHTTP()
	if err != nil {
		return err
	}
	if s.NoGRPC {
		return s.serveHTTP(ctx, lis, in, openErr, logger)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return s.serveHTTP(gctx, lis, in, openErr, logger) })
	g.Go(func() error { return s.serve(gctx, in, load, logger, opts) })
	return g.Wait()
}

// serve binds the port and serves the catalog load loads (in, nil when
// the catalog did not open, is what it serves).
func (s *Serve) serve(ctx context.Context, in *input.Input, load func(context.Context) (registry.Querier, error), logger *slog.Logger, opts []registry.Option) error {
	var p Profiler
	if s.StartProfiler != nil {
		var err error
		if p, err = s.StartProfiler(ctx); err != nil {
			return err
		}
		defer p.Stop()
	}
	// The port is bound before the catalog is loaded: a busy port
	// fails at once, and health reports NOT_SERVING while loading.
	lis, err := net.Listen("tcp", net.JoinHostPort("", strconv.Itoa(s.Port)))
	if err != nil {
		return fmt.Errorf("listen on port %d: %w", s.Port, err)
	}
	addr := lis.Addr().String()
	logger.Info("listening on "+addr+"; loading the catalog (health NOT_SERVING until loaded)", "address", addr, "catalog", s.Catalog)
	ready := func(registry.Querier) {
		if p != nil {
			p.Ready()
		}
		logger.Info("serving on "+addr, "address", addr, "catalog", s.Catalog, "kind", string(in.Kind))
	}
	return registry.ServeLoading(ctx, lis, load, ready, append(opts, registry.WithLogger(logger))...)
}
