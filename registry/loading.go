package registry

import (
	"context"
	"fmt"
	"net"
	"strings"
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
// does) as long as the Querier, if it is a HealthChecker, is healthy.
// Watch and List are unimplemented.
type Health struct {
	healthgrpc.UnimplementedHealthServer
	q atomic.Pointer[Querier]
}

// ready marks the catalog loaded: health follows q from now on.
func (h *Health) ready(q Querier) { h.q.Store(&q) }

// Check reports the serving status.
func (h *Health) Check(context.Context, *healthgrpc.HealthCheckRequest) (*healthgrpc.HealthCheckResponse, error) {
	st := healthgrpc.HealthCheckResponse_SERVING
	if p := h.q.Load(); p == nil {
		st = healthgrpc.HealthCheckResponse_NOT_SERVING
	} else if hc, ok := (*p).(HealthChecker); ok && hc.Healthy() != nil {
		st = healthgrpc.HealthCheckResponse_NOT_SERVING
	}
	return &healthgrpc.HealthCheckResponse{Status: st}, nil
}

// errLoading answers api.Registry calls made before the catalog is loaded.
var errLoading = status.Error(codes.Unavailable, "the catalog is still loading; health reports SERVING once it is ready")

// registryPrefix is the full method prefix of api.Registry.
const registryPrefix = "/api.Registry/"

// unavailable returns the error for an api.Registry call that must not be
// answered now: the catalog is still loading, or the Querier is unhealthy
// (its file changed under it: answers would be wrong or malformed).
func (h *Health) unavailable(method string) error {
	if !strings.HasPrefix(method, registryPrefix) {
		return nil // health and reflection always answer
	}
	p := h.q.Load()
	if p == nil {
		return errLoading
	}
	if hc, ok := (*p).(HealthChecker); ok {
		if err := hc.Healthy(); err != nil {
			return status.Error(codes.Unavailable, err.Error())
		}
	}
	return nil
}

// gate refuses api.Registry calls while h.unavailable says so.
func gate(h *Health) (grpc.UnaryServerInterceptor, grpc.StreamServerInterceptor) {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
			if err := h.unavailable(info.FullMethod); err != nil {
				return nil, err
			}
			return handler(ctx, req)
		}, func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
			if err := h.unavailable(info.FullMethod); err != nil {
				return err
			}
			return handler(srv, ss)
		}
}

// ServeLoading serves on lis at once, while load builds the Querier:
// until load returns, health reports NOT_SERVING and api.Registry calls
// fail with code Unavailable, so that a busy port fails before a long
// load and probes see the server come up. Once loaded it serves the
// Querier exactly as Serve does, and closes it on return. onReady, if
// set, is called once the catalog is served. An error from load stops
// the server and is returned.
func ServeLoading(ctx context.Context, lis net.Listener, load func(context.Context) (Querier, error), onReady func(Querier), opts ...Option) error {
	o := buildOptions(opts)
	srv := &Server{}
	health := &Health{}
	s := newGRPCServer(srv, health, o)
	errc := make(chan error, 1)
	go func() { errc <- s.Serve(lis) }()

	q, err := load(ctx)
	if err != nil {
		s.Stop()
		<-errc
		return err
	}
	defer q.Close()
	srv.q = q // written before health.ready publishes it to the RPCs
	health.ready(q)
	if onReady != nil {
		onReady(q)
	}
	return waitAndStop(ctx, s, errc, lis, o)
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
