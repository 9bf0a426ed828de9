package registry

import (
	"context"
	"log/slog"
	"net"
	"time"

	"google.golang.org/grpc"
	healthgrpc "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"

	"github.com/operator-catalog/olmcat/registry/api"
)

// DefaultShutdownTimeout bounds how long Serve waits for in-flight RPCs
// after its context is done before it closes every connection.
const DefaultShutdownTimeout = 10 * time.Second

// Option configures NewGRPCServer and Serve.
type Option func(*options)

type options struct {
	logger          *slog.Logger
	shutdownTimeout time.Duration
	grpcOpts        []grpc.ServerOption
	watch           *watchConfig
	limits          *Limits
	holdOnLoadError bool
}

// WithLogger logs every RPC (method, code, duration) and Serve's life cycle
// to l. Without it nothing is logged.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithShutdownTimeout sets how long Serve lets in-flight RPCs finish after
// its context is done (DefaultShutdownTimeout when unset or not positive).
func WithShutdownTimeout(d time.Duration) Option {
	return func(o *options) { o.shutdownTimeout = d }
}

// WithServerOptions passes extra options to grpc.NewServer (for example
// message size limits or credentials).
func WithServerOptions(opts ...grpc.ServerOption) Option {
	return func(o *options) { o.grpcOpts = append(o.grpcOpts, opts...) }
}

// WithHoldOnLoadError makes ServeLoading keep serving after its load
// failed, instead of stopping: health stays NOT_SERVING and api.Registry
// calls fail with code Unavailable and the load's error, which is logged
// once, until ctx is done; ServeLoading then returns that error. A
// catalog pod's server does this, so that its probes keep reporting
// NOT_SERVING (not a refused connection) and the reason stays in its log.
func WithHoldOnLoadError() Option { return func(o *options) { o.holdOnLoadError = true } }

func buildOptions(opts []Option) options {
	o := options{shutdownTimeout: DefaultShutdownTimeout}
	for _, opt := range opts {
		opt(&o)
	}
	if o.logger == nil {
		o.logger = slog.New(slog.DiscardHandler)
	}
	if o.shutdownTimeout <= 0 {
		o.shutdownTimeout = DefaultShutdownTimeout
	}
	return o
}

// NewGRPCServer returns a gRPC server answering api.Registry from q, with
// grpc.health.v1.Health (SERVING, as every upstream registry server
// reports, while q is healthy: see HealthChecker) and server reflection
// (so grpcurl works without protos). The caller serves it and closes q
// when done.
func NewGRPCServer(q Querier, opts ...Option) *grpc.Server {
	health := &Health{}
	health.ready(q)
	return newGRPCServer(NewServer(q), health, buildOptions(opts))
}

// newServer is the server Serve and ServeLoading run on lis, with the
// limits of o; it returns the listener to serve.
func newServer(srv *Server, health *Health, lis net.Listener, o options) (*grpc.Server, net.Listener) {
	if o.limits == nil {
		return newGRPCServer(srv, health, o), lis
	}
	cl := newConnLimiter(lis, o.limits.MaxConnections)
	if o.limits.SendBuffer > 0 {
		srv.send = newSendLimiter(o.limits.SendBuffer, o.limits.SendStall, cl)
	}
	// The limits go first: options given with WithServerOptions win.
	o.grpcOpts = append(o.limits.serverOptions(), o.grpcOpts...)
	return newGRPCServer(srv, health, o), cl
}

// newGRPCServer registers srv, health and reflection on a new server whose
// api.Registry calls wait for health to be ready.
func newGRPCServer(srv *Server, health *Health, o options) *grpc.Server {
	gateUnary, gateStream := gate(health)
	gopts := append([]grpc.ServerOption{
		grpc.ChainUnaryInterceptor(unaryLogger(o.logger), gateUnary),
		grpc.ChainStreamInterceptor(streamLogger(o.logger), gateStream),
	}, o.grpcOpts...)
	s := grpc.NewServer(gopts...)
	api.RegisterRegistryServer(s, srv)
	healthgrpc.RegisterHealthServer(s, health)
	reflection.Register(s)
	return s
}

// Serve serves q on lis until ctx is done, then stops gracefully: new
// connections are refused and in-flight RPCs get the shutdown timeout to
// finish before every connection is closed. It returns nil after a
// shutdown caused by ctx, or the error that stopped serving. lis is
// closed on return; q is not.
func Serve(ctx context.Context, lis net.Listener, q Querier, opts ...Option) error {
	o := buildOptions(opts)
	health := &Health{}
	health.ready(q)
	s, lis := newServer(NewServer(q), health, lis, o)
	errc := make(chan error, 1)
	go func() { errc <- s.Serve(lis) }()
	o.logger.Debug("serving registry", "address", lis.Addr().String())
	return waitAndStop(ctx, s, errc, lis, o)
}

func unaryLogger(l *slog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		start := time.Now()
		resp, err := handler(ctx, req)
		logCall(ctx, l, info.FullMethod, start, err)
		return resp, err
	}
}

func streamLogger(l *slog.Logger) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		start := time.Now()
		err := handler(srv, ss)
		logCall(ss.Context(), l, info.FullMethod, start, err)
		return err
	}
}

func logCall(ctx context.Context, l *slog.Logger, method string, start time.Time, err error) {
	code := status.Code(rpcError(err))
	attrs := []slog.Attr{
		slog.String("method", method),
		slog.String("code", code.String()),
		slog.Duration("duration", time.Since(start)),
	}
	if err != nil {
		// Not-found answers are ordinary for this API (upstream returns
		// them as Unknown), so they are logged at the same level.
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	l.LogAttrs(ctx, slog.LevelInfo, "rpc", attrs...)
}
