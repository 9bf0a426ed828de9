package registry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthgrpc "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// HealthChecker is implemented by Queriers whose data can go bad under a
// running server (a sqlite file rewritten in place). While Healthy
// returns an error, health reports NOT_SERVING and api.Registry calls
// fail with code Unavailable instead of answering from a changed or
// malformed file. It is called once per call, so it must be cheap.
type HealthChecker interface {
	Healthy() error
}

// Health implements grpc.health.v1.Health: NOT_SERVING until the catalog
// is loaded, then SERVING for any service name (as operator-registry
// does) as long as the catalog is good: the Querier, if it is a
// HealthChecker, is healthy, and the watch (WithWatch) has seen no
// change of the served files since they were loaded. Watch streams
// those changes; List is unimplemented.
type Health struct {
	healthgrpc.UnimplementedHealthServer
	// cur is the catalog served, nil while loading.
	cur atomic.Pointer[generation]
	// stale, when set, is why the served files no longer are what cur
	// was loaded from (the watch saw them change).
	stale atomic.Pointer[error]
	// failed, when set, is why the catalog could not be loaded
	// (WithHoldOnLoadError).
	failed atomic.Pointer[error]
	mu     sync.Mutex
	// changed is closed and replaced whenever cur or stale changes.
	changed chan struct{}
}

// generation is one loaded catalog and the calls answering from it, so
// that a reload closes the Querier it replaces only once those are done.
type generation struct {
	q        Querier
	mu       sync.Mutex
	calls    int
	retired  bool
	finished chan struct{} // closed once retired and no call is left
}

// enter counts a call on g; false once g is retired.
func (g *generation) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.retired {
		return false
	}
	g.calls++
	return true
}

func (g *generation) exit() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls--
	if g.retired && g.calls == 0 {
		close(g.finished)
	}
}

// retire takes g out of service: finished is closed once its last call
// returns.
func (g *generation) retire() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.retired = true
	if g.calls == 0 {
		close(g.finished)
	}
}

// ready serves q from now on (the first load or a reload) and clears a
// recorded change; it returns the generation q replaces, if any.
func (h *Health) ready(q Querier) *generation {
	old := h.cur.Swap(&generation{q: q, finished: make(chan struct{})})
	h.stale.Store(nil)
	h.notify()
	return old
}

// markStale records that the served files changed: NOT_SERVING from now
// until the next ready.
func (h *Health) markStale(err error) {
	h.stale.Store(&err)
	h.notify()
}

func (h *Health) notify() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.changed != nil {
		close(h.changed)
	}
	h.changed = make(chan struct{})
}

// fail records that the catalog could not be loaded: NOT_SERVING for
// good, with err as the reason.
func (h *Health) fail(err error) {
	h.failed.Store(&err)
	h.notify()
}

// changes returns a channel closed at the next change of state.
func (h *Health) changes() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.changed == nil {
		h.changed = make(chan struct{})
	}
	return h.changed
}

// errLoading answers api.Registry calls made before the catalog is loaded.
var errLoading = status.Error(codes.Unavailable, "the catalog is still loading; health reports SERVING once it is ready")

// problem is why the catalog cannot be answered from now (loading,
// changed on disk, unhealthy Querier), or nil with the generation to
// answer from.
func (h *Health) problem() (*generation, error) {
	g := h.cur.Load()
	if g == nil {
		if p := h.failed.Load(); p != nil {
			return nil, status.Error(codes.Unavailable, "the catalog failed to load: "+(*p).Error())
		}
		return nil, errLoading
	}
	if p := h.stale.Load(); p != nil {
		return nil, status.Error(codes.Unavailable, (*p).Error())
	}
	if hc, ok := g.q.(HealthChecker); ok {
		if err := hc.Healthy(); err != nil {
			return nil, status.Error(codes.Unavailable, err.Error())
		}
	}
	return g, nil
}

func (h *Health) status() healthgrpc.HealthCheckResponse_ServingStatus {
	if _, err := h.problem(); err != nil {
		return healthgrpc.HealthCheckResponse_NOT_SERVING
	}
	return healthgrpc.HealthCheckResponse_SERVING
}

// Check reports the serving status.
func (h *Health) Check(context.Context, *healthgrpc.HealthCheckRequest) (*healthgrpc.HealthCheckResponse, error) {
	return &healthgrpc.HealthCheckResponse{Status: h.status()}, nil
}

// watchPoll is how often Watch looks at a Querier's own health (a sqlite
// file's, known only when asked); loads, changes and reloads are sent
// at once.
const watchPoll = time.Second

// Watch sends the serving status, then every change of it, until the
// client goes away.
func (h *Health) Watch(_ *healthgrpc.HealthCheckRequest, stream healthgrpc.Health_WatchServer) error {
	last := healthgrpc.HealthCheckResponse_ServingStatus(-1)
	t := time.NewTicker(watchPoll)
	defer t.Stop()
	for {
		changed := h.changes()
		if st := h.status(); st != last {
			if err := stream.Send(&healthgrpc.HealthCheckResponse{Status: st}); err != nil {
				return err
			}
			last = st
		}
		select {
		case <-stream.Context().Done():
			return status.FromContextError(stream.Context().Err()).Err()
		case <-changed:
		case <-t.C:
		}
	}
}

// registryPrefix is the full method prefix of api.Registry.
const registryPrefix = "/api.Registry/"

// genKey carries the generation a call answers from in its context.
type genKey struct{}

// enter admits an api.Registry call: it answers from the generation
// served now, or fails with Unavailable (loading, changed on disk,
// unhealthy). Health and reflection always answer. done ends the call.
func (h *Health) enter(ctx context.Context, method string) (context.Context, func(), error) {
	if !strings.HasPrefix(method, registryPrefix) {
		return ctx, func() {}, nil
	}
	for {
		g, err := h.problem()
		if err != nil {
			return ctx, nil, err
		}
		if g.enter() {
			return context.WithValue(ctx, genKey{}, g), g.exit, nil
		}
		// Retired between the load and the count: a reload swapped in
		// the next generation; answer from that one.
	}
}

// gate admits api.Registry calls through h.enter.
func gate(h *Health) (grpc.UnaryServerInterceptor, grpc.StreamServerInterceptor) {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
			ctx, done, err := h.enter(ctx, info.FullMethod)
			if err != nil {
				return nil, err
			}
			defer done()
			return handler(ctx, req)
		}, func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
			ctx, done, err := h.enter(ss.Context(), info.FullMethod)
			if err != nil {
				return err
			}
			defer done()
			return handler(srv, &ctxStream{ServerStream: ss, ctx: ctx})
		}
}

// ctxStream is a ServerStream with the gate's context.
type ctxStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *ctxStream) Context() context.Context { return s.ctx }

// ServeLoading serves on lis at once, while load builds the Querier:
// until load returns, health reports NOT_SERVING and api.Registry calls
// fail with code Unavailable, so that a busy port fails before a long
// load and probes see the server come up. Once loaded it serves the
// Querier exactly as Serve does, and closes it on return. onReady, if
// set, is called once the catalog is served. An error from load stops
// the server and is returned. With WithWatch, a change of the served
// files turns it NOT_SERVING, and with reload it loads them again.
func ServeLoading(ctx context.Context, lis net.Listener, load func(context.Context) (Querier, error), onReady func(Querier), opts ...Option) error {
	o := buildOptions(opts)
	srv := &Server{}
	health := &Health{}
	s, lis := newServer(srv, health, lis, o)
	errc := make(chan error, 1)
	go func() { errc <- s.Serve(lis) }()

	w := o.watch.start(o.logger)
	q, err := load(ctx)
	if err != nil && o.holdOnLoadError {
		health.fail(err)
		o.logger.Error("the catalog failed to load; health NOT_SERVING until the server stops", "error", err.Error())
		return errors.Join(err, waitAndStop(ctx, s, errc, lis, o))
	}
	if err != nil {
		s.Stop()
		<-errc
		return err
	}
	health.ready(q)
	if onReady != nil {
		onReady(q)
	}
	wctx, stopWatch := context.WithCancel(ctx)
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		w.run(wctx, health, load)
	}()
	err = waitAndStop(ctx, s, errc, lis, o)
	stopWatch()
	<-watchDone
	if g := health.cur.Load(); g != nil {
		g.q.Close()
	}
	return err
}

// waitAndStop waits for ctx or a serving error, then stops s gracefully
// within the shutdown timeout.
func waitAndStop(ctx context.Context, s *grpc.Server, errc chan error, lis net.Listener, o options) error {
	select {
	case err := <-errc:
		if err != nil {
			return fmt.Errorf("serve on %s: %w", lis.Addr(), err)
		}
		return nil
	case <-ctx.Done():
	}
	o.logger.Info("shutting down", "timeout", o.shutdownTimeout.String())
	stopped := make(chan struct{})
	go func() {
		s.GracefulStop()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-time.After(o.shutdownTimeout):
		o.logger.Warn("graceful shutdown timed out; closing connections")
		s.Stop()
		<-stopped
	}
	<-errc // Serve returns nil once stopped.
	o.logger.Info("stopped")
	return nil
}
