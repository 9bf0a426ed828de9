package catalogdhttp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/operator-catalog/olmcat/internal/pollwatch"
	"github.com/operator-catalog/olmcat/internal/tempdir"
)

// scratchPrefix names the temporary directories of the served files in
// the system's temporary directory: one a run killed before its cleanup
// left is removed by the next run (tempdir.Scratch).
const scratchPrefix = "olmcat-catalogd-"

// catalogd's server timeouts: 5 s to read a request, 5 min to write a
// response.
const (
	readTimeout  = 5 * time.Second
	writeTimeout = 5 * time.Minute
)

// Config is what Serve serves and how it watches it.
type Config struct {
	// Name is the catalog's name in the URLs (a DNS-1123 subdomain).
	Name string
	// Source gives the catalog's blobs, at start and on each reload.
	Source Source
	// Fingerprint digests the served files cheaply (registry/source's);
	// with an Interval above 0 it is taken every Interval, and a change
	// stops serving the catalog (404, /healthz 503) until a restart, or
	// with Reload until the changed catalog is loaded again, as the gRPC
	// server does (registry.WithWatch).
	Fingerprint func() (string, error)
	Interval    time.Duration
	Reload      bool
	// HoldOnLoadError keeps serving (the catalog unknown, /healthz 503
	// with the reason) when the first load fails, returning its error
	// when ctx ends, instead of returning it at once.
	HoldOnLoadError bool
	// Logger gets the server's log (required).
	Logger *slog.Logger
}

// Serve serves catalogd's HTTP API on lis until ctx ends: the listener
// answers at once (the catalog unknown until loaded), the catalog is
// encoded into a file in a temporary directory, then served and watched.
// It returns nil when ctx ends after the catalog was served, and the
// load's error (ctx's, for a stop while loading) otherwise.
func Serve(ctx context.Context, lis net.Listener, c Config) error {
	log := c.Logger.With("api", "catalogd-http")
	dir, err := tempdir.Scratch(scratchPrefix, func(d string) {
		log.Info("removed the served files a killed run left", "dir", d)
	})
	if err != nil {
		lis.Close()
		return err
	}
	defer dir.Remove()
	h := NewHandler(c.Name)
	defer h.Close()
	srv := &http.Server{Handler: h, ReadTimeout: readTimeout, ReadHeaderTimeout: readTimeout, WriteTimeout: writeTimeout,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(lis) }()
	addr := lis.Addr().String()
	log.Info("catalogd HTTP API listening on "+addr+"; loading the catalog", "address", addr, "catalog", c.Name)

	w := &watch{c: &c, h: h, dir: dir.Path, log: log}
	// A stop while the catalog loads ends the load with ctx's error,
	// returned as the gRPC server returns it (registry.ServeLoading):
	// the run was interrupted before it served.
	loadErr := w.first(ctx)
	watching := make(chan struct{})
	if loadErr == nil {
		log.Info("catalogd HTTP API ready at http://"+addr+"/catalogs/"+c.Name+"/api/v1/all", "address", addr, "catalog", c.Name)
		// The watch (a reload in flight too) ends before the snapshots
		// are closed.
		runCtx, stop := context.WithCancel(ctx)
		go func() {
			defer close(watching)
			w.run(runCtx)
		}()
		defer func() { <-watching }()
		defer stop()
	} else if c.HoldOnLoadError && ctx.Err() == nil {
		log.Error("catalog not loaded: the catalogd HTTP API answers 404 for it", "error", loadErr.Error())
	}
	if loadErr == nil || c.HoldOnLoadError {
		select {
		case <-ctx.Done():
		case err := <-errc:
			return fmt.Errorf("serve catalogd HTTP API: %w", err)
		}
	}
	shutdown(ctx, srv)
	return loadErr
}

// shutdown stops srv, letting the requests in flight finish for a few
// seconds.
func shutdown(ctx context.Context, srv *http.Server) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		srv.Close()
	}
}

// watch loads the catalog and, with an interval, reloads it on change.
type watch struct {
	c     *Config
	h     *Handler
	dir   string
	log   *slog.Logger
	files *pollwatch.Watch // nil without a Fingerprint
}

// first takes the fingerprint, then loads and serves the catalog.
func (w *watch) first(ctx context.Context) error {
	if w.c.Fingerprint != nil {
		w.files = pollwatch.Start(w.c.Fingerprint)
	}
	start := time.Now()
	s, err := Build(ctx, w.dir, w.c.Source)
	if err != nil {
		w.h.Unavailable(fmt.Errorf("the catalog does not load: %w", err))
		return err
	}
	w.h.Set(s)
	w.log.Info("catalog encoded for the catalogd HTTP API", "blobs", s.Blobs(), "bytes", s.Size(), "duration", time.Since(start).String())
	return nil
}

// errChanged is why a watched catalog is no longer served.
var errChanged = errors.New("the catalog changed on disk since it was loaded")

// run polls the fingerprint until ctx ends.
func (w *watch) run(ctx context.Context) {
	if w.files == nil || w.c.Interval <= 0 {
		return
	}
	w.files.Run(ctx, w.c.Interval, func(ctx context.Context, err error) {
		if !w.c.Reload {
			w.h.Unavailable(fmt.Errorf("%w; restart the server to serve it", errChanged))
			w.log.Warn("catalog changed on disk: not served until the server is restarted")
			return
		}
		w.h.Unavailable(fmt.Errorf("%w; reloading it", errChanged))
		if err == nil {
			w.reload(ctx)
		}
	})
}

// reload loads the changed catalog and serves it, unless it fails or the
// files changed again meanwhile (the next poll sees that).
func (w *watch) reload(ctx context.Context) {
	s, err := Build(ctx, w.dir, w.c.Source)
	if err != nil {
		if ctx.Err() == nil {
			w.h.Unavailable(fmt.Errorf("%w, and it does not load (retried when it changes again): %w", errChanged, err))
			w.log.Error("reload failed: the catalog is not served until it changes again", "error", err.Error())
		}
		return
	}
	if !w.files.Unchanged() {
		s.Close()
		return
	}
	w.h.Set(s)
	w.log.Info("catalog reloaded for the catalogd HTTP API", "blobs", s.Blobs(), "bytes", s.Size())
}
