package registry

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/operator-catalog/olmcat/registry/api"
)

// Server implements api.RegistryServer over any Querier. It is a thin
// pass-through, as operator-registry's is: querier errors reach the client
// as plain errors (gRPC code Unknown with the error text), which is what
// OLM and parity checks expect; only context errors get their own codes.
type Server struct {
	api.UnimplementedRegistryServer
	q Querier
	// send, when set, bounds what ListBundles streams hold (WithLimits).
	send *sendLimiter
}

var _ api.RegistryServer = (*Server)(nil)

// NewServer returns a Server answering from q.
func NewServer(q Querier) *Server { return &Server{q: q} }

// querier is the Querier a call answers from: the generation the gate
// admitted it to (ServeLoading swaps catalogs on reload), else q.
func (s *Server) querier(ctx context.Context) Querier {
	if g, ok := ctx.Value(genKey{}).(*generation); ok {
		return g.q
	}
	return s.q
}

// ListPackages streams every package name.
func (s *Server) ListPackages(_ *api.ListPackageRequest, stream api.Registry_ListPackagesServer) error {
	names, err := s.querier(stream.Context()).ListPackages(stream.Context())
	if err != nil {
		return rpcError(err)
	}
	for _, n := range names {
		if err := stream.Send(&api.PackageName{Name: n}); err != nil {
			return err
		}
	}
	return nil
}

// GetPackage returns one package with its channels.
func (s *Server) GetPackage(ctx context.Context, req *api.GetPackageRequest) (*api.Package, error) {
	p, err := s.querier(ctx).GetPackage(ctx, req.GetName())
	return p, rpcError(err)
}

// GetBundle returns one bundle of one channel.
func (s *Server) GetBundle(ctx context.Context, req *api.GetBundleRequest) (*api.Bundle, error) {
	b, err := s.querier(ctx).GetBundle(ctx, req.GetPkgName(), req.GetChannelName(), req.GetCsvName())
	return b, rpcError(err)
}

// GetBundleForChannel returns the head bundle of a channel.
func (s *Server) GetBundleForChannel(ctx context.Context, req *api.GetBundleInChannelRequest) (*api.Bundle, error) {
	b, err := s.querier(ctx).GetBundleForChannel(ctx, req.GetPkgName(), req.GetChannelName())
	return b, rpcError(err)
}

// GetChannelEntriesThatReplace streams the entries that replace or skip a bundle.
func (s *Server) GetChannelEntriesThatReplace(req *api.GetAllReplacementsRequest, stream api.Registry_GetChannelEntriesThatReplaceServer) error {
	entries, err := s.querier(stream.Context()).GetChannelEntriesThatReplace(stream.Context(), req.GetCsvName())
	if err != nil {
		return rpcError(err)
	}
	return sendAll(entries, stream.Send)
}

// GetBundleThatReplaces returns the bundle of a channel that replaces a bundle.
func (s *Server) GetBundleThatReplaces(ctx context.Context, req *api.GetReplacementRequest) (*api.Bundle, error) {
	b, err := s.querier(ctx).GetBundleThatReplaces(ctx, req.GetCsvName(), req.GetPkgName(), req.GetChannelName())
	return b, rpcError(err)
}

// GetChannelEntriesThatProvide streams the entries whose bundle provides a GVK.
// The request's plural is ignored, as upstream does.
func (s *Server) GetChannelEntriesThatProvide(req *api.GetAllProvidersRequest, stream api.Registry_GetChannelEntriesThatProvideServer) error {
	entries, err := s.querier(stream.Context()).GetChannelEntriesThatProvide(stream.Context(), req.GetGroup(), req.GetVersion(), req.GetKind())
	if err != nil {
		return rpcError(err)
	}
	return sendAll(entries, stream.Send)
}

// GetLatestChannelEntriesThatProvide streams, per channel, the latest entry providing a GVK.
func (s *Server) GetLatestChannelEntriesThatProvide(req *api.GetLatestProvidersRequest, stream api.Registry_GetLatestChannelEntriesThatProvideServer) error {
	entries, err := s.querier(stream.Context()).GetLatestChannelEntriesThatProvide(stream.Context(), req.GetGroup(), req.GetVersion(), req.GetKind())
	if err != nil {
		return rpcError(err)
	}
	return sendAll(entries, stream.Send)
}

// GetDefaultBundleThatProvides returns the bundle of a default channel that provides a GVK.
func (s *Server) GetDefaultBundleThatProvides(ctx context.Context, req *api.GetDefaultProviderRequest) (*api.Bundle, error) {
	b, err := s.querier(ctx).GetBundleThatProvides(ctx, req.GetGroup(), req.GetVersion(), req.GetKind())
	return b, rpcError(err)
}

// ListBundles streams every bundle, one message per channel membership.
// With a send limit, each bundle is prepared in the stream's turn and
// sent once the previous one is written (sendLimiter).
func (s *Server) ListBundles(_ *api.ListBundlesRequest, stream api.Registry_ListBundlesServer) error {
	ctx := stream.Context()
	if s.send == nil {
		return rpcError(s.querier(ctx).ListBundles(ctx, stream.Send))
	}
	ls := &limitedSender{l: s.send, stream: stream}
	if err := ls.start(); err != nil {
		return rpcError(err)
	}
	defer ls.end()
	return rpcError(s.querier(ctx).ListBundles(ctx, func(b *api.Bundle) error { return ls.send(b) }))
}

func sendAll[T any](items []T, send func(T) error) error {
	for _, it := range items {
		if err := send(it); err != nil {
			return err
		}
	}
	return nil
}

// rpcError keeps querier errors as they are (grpc-go reports them as
// Unknown with the error text, like upstream), except that cancellation
// and deadlines get their own codes so clients can tell them apart.
func rpcError(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	switch {
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, err.Error())
	case len(err.Error()) > maxError:
		// What a plain error becomes on the wire, cut (see Clip).
		return status.Error(codes.Unknown, clipTo(err.Error(), maxError))
	}
	return err
}
