package registry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/operator-catalog/olmcat/internal/pollwatch"
)

// WithWatch makes ServeLoading watch the files it serves. fingerprint
// digests them cheaply (for a directory: every file's path, size,
// modification time and inode, and the directory's own inode; no
// contents) and is taken before the catalog is loaded, then every
// interval. When it differs, or fails (the catalog was removed), health
// turns NOT_SERVING and api.Registry calls fail with Unavailable, as for
// a sqlite file changed under its Querier. Without reload that lasts
// until the server is restarted. With reload the catalog is loaded again
// in the background and swapped in whole once loaded (calls in flight
// finish on the catalog they started on; the Querier it replaces is
// closed after them): until then the server keeps answering
// NOT_SERVING/Unavailable, so no answer ever mixes the old and the new
// catalog. A reload that fails is logged and the server stays NOT_SERVING
// until the files change again, when it is retried.
//
// Polling, not inotify: package pollwatch says why.
func WithWatch(fingerprint func() (string, error), interval time.Duration, reload bool) Option {
	return func(o *options) {
		o.watch = &watchConfig{fingerprint: fingerprint, interval: interval, reload: reload}
	}
}

type watchConfig struct {
	fingerprint func() (string, error)
	interval    time.Duration
	reload      bool
}

// watcher polls the fingerprint of the served files.
type watcher struct {
	cfg    *watchConfig
	logger *slog.Logger
	files  *pollwatch.Watch
}

// start takes the fingerprint of the files about to be loaded; a nil
// config watches nothing.
func (c *watchConfig) start(logger *slog.Logger) *watcher {
	if c == nil {
		return nil
	}
	return &watcher{cfg: c, logger: logger, files: pollwatch.Start(c.fingerprint)}
}

// errChanged is why a watched catalog is NOT_SERVING.
var errChanged = errors.New("the catalog changed on disk since it was loaded")

// run polls until ctx is done.
func (w *watcher) run(ctx context.Context, h *Health, load func(context.Context) (Querier, error)) {
	if w == nil {
		return
	}
	w.files.Run(ctx, w.cfg.interval, func(ctx context.Context, err error) {
		reason := errChanged
		if err != nil {
			reason = fmt.Errorf("%w: %w", errChanged, err)
		}
		if !w.cfg.reload {
			h.markStale(fmt.Errorf("%w; restart the server to serve it", reason))
			w.logger.Warn("catalog changed on disk: health NOT_SERVING until the server is restarted", "reason", reason.Error())
			return
		}
		if err != nil {
			h.markStale(fmt.Errorf("%w; reloading it once it can be read", reason))
		} else {
			h.markStale(fmt.Errorf("%w; reloading it", reason))
		}
		w.logger.Warn("catalog changed on disk: health NOT_SERVING while it is reloaded", "reason", reason.Error())
		if err == nil {
			w.reload(ctx, h, load)
		}
	})
}

// reload loads the catalog again and swaps it in, unless the load fails
// or the files changed again meanwhile (the next poll sees that).
func (w *watcher) reload(ctx context.Context, h *Health, load func(context.Context) (Querier, error)) {
	start := time.Now()
	q, err := load(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		h.markStale(fmt.Errorf("%w, and it does not load (retried when it changes again): %w", errChanged, err))
		w.logger.Error("reload failed: health NOT_SERVING until the catalog changes again", "error", err.Error())
		return
	}
	if !w.files.Unchanged() {
		q.Close()
		w.logger.Info("catalog changed again while it was reloaded; reloading again")
		return
	}
	old := h.ready(q)
	w.logger.Info("catalog reloaded: health SERVING", "duration", time.Since(start).String())
	if old != nil {
		old.retire()
		go func() {
			<-old.finished
			old.q.Close()
		}()
	}
}
