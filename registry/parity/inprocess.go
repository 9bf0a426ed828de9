package parity

import (
	"context"
	"errors"
	"fmt"
	"io"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/operator-catalog/olmcat/registry/api"
)

// inProcess is an api.RegistryClient that calls a registry server's
// handlers directly: the same answers as over the wire, without encoding
// each one twice and copying it through a socket (BenchmarkParity: the
// in-process sides take a third of the loopback sides' CPU at 10,000
// bundles). An answer the wire could not carry (a string that is not
// UTF-8: grpc's codec refuses to marshal it) is asked again of wire, the
// same server behind a real in-memory gRPC connection, so the caller gets
// exactly what grpc answers instead.
type inProcess struct {
	srv  api.RegistryServer
	wire api.RegistryClient
	// memo remembers the manifests found wireable, for the answers of
	// srv (nil: none are remembered).
	memo *utf8Memo
}

// unary calls a unary handler, and the wire for an answer it cannot carry.
func unary[Req any, Resp proto.Message](ctx context.Context, in Req, memo *utf8Memo, h func(context.Context, Req) (Resp, error),
	wire func(context.Context, Req, ...grpc.CallOption) (Resp, error)) (Resp, error) {
	out, err := h(ctx, in)
	if err != nil {
		var zero Resp
		return zero, err
	}
	if !wireable(out, memo) {
		return wire(ctx, in)
	}
	return out, nil
}

// stream runs a server-streaming handler in its own goroutine and returns
// the client end: messages pass one at a time, so a long answer
// (ListBundles) is never held whole. When the handler sends a message
// the wire cannot carry, the stream ends with the error the same call
// over wire ends with.
func stream[Req any, T any, PT interface {
	*T
	proto.Message
}](ctx context.Context, in Req, memo *utf8Memo, h func(Req, grpc.ServerStreamingServer[T]) error,
	wire func(context.Context, Req, ...grpc.CallOption) (grpc.ServerStreamingClient[T], error)) (grpc.ServerStreamingClient[T], error) {
	ctx, cancel := context.WithCancel(ctx)
	p := &pipe[T]{ctx: ctx, cancel: cancel, ch: make(chan *T, 16), memo: memo}
	go func() {
		err := h(in, serverEnd[T, PT]{p})
		if p.refused {
			err = wireError(ctx, in, wire)
		}
		p.err = err
		close(p.ch)
	}()
	return clientEnd[T, PT]{p}, nil
}

// wireError makes a streaming call over the wire and returns the error
// it ends with.
func wireError[Req any, T any](ctx context.Context, in Req,
	wire func(context.Context, Req, ...grpc.CallOption) (grpc.ServerStreamingClient[T], error)) error {
	s, err := wire(ctx, in)
	for err == nil {
		_, err = s.Recv()
	}
	if errors.Is(err, io.EOF) {
		return errors.New("an answer refused in process went over the wire")
	}
	return err
}

// pipe carries one stream's messages from the handler to the caller.
type pipe[T any] struct {
	ctx     context.Context
	cancel  context.CancelFunc
	ch      chan *T
	refused bool // the handler sent a message the wire cannot carry
	memo    *utf8Memo
	err     error // the handler's error, set before ch is closed
}

// serverEnd is the handler's side of a pipe.
type serverEnd[T any, PT interface {
	*T
	proto.Message
}] struct{ p *pipe[T] }

// errNotWireable ends a handler that sent a message the wire cannot
// carry; the caller gets the wire's error instead.
var errNotWireable = errors.New("answer not marshalable")

func (s serverEnd[T, PT]) Send(m *T) error {
	if !wireable(PT(m), s.p.memo) {
		s.p.refused = true
		return errNotWireable
	}
	select {
	case s.p.ch <- m:
		return nil
	case <-s.p.ctx.Done():
		return status.FromContextError(s.p.ctx.Err()).Err()
	}
}
func (s serverEnd[T, PT]) Context() context.Context     { return s.p.ctx }
func (s serverEnd[T, PT]) SetHeader(metadata.MD) error  { return nil }
func (s serverEnd[T, PT]) SendHeader(metadata.MD) error { return nil }
func (s serverEnd[T, PT]) SetTrailer(metadata.MD)       {}
func (s serverEnd[T, PT]) SendMsg(m any) error {
	t, ok := m.(*T)
	if !ok {
		return fmt.Errorf("send %T on a stream of %T", m, t)
	}
	return s.Send(t)
}
func (s serverEnd[T, PT]) RecvMsg(any) error { return io.EOF }

// clientEnd is the caller's side of a pipe.
type clientEnd[T any, PT interface {
	*T
	proto.Message
}] struct{ p *pipe[T] }

func (c clientEnd[T, PT]) Recv() (*T, error) {
	select {
	case m, ok := <-c.p.ch:
		if ok {
			return m, nil
		}
		c.p.cancel()
		if c.p.err != nil {
			return nil, c.p.err
		}
		return nil, io.EOF
	case <-c.p.ctx.Done():
		return nil, status.FromContextError(c.p.ctx.Err()).Err()
	}
}
func (c clientEnd[T, PT]) Context() context.Context     { return c.p.ctx }
func (c clientEnd[T, PT]) Header() (metadata.MD, error) { return nil, nil }
func (c clientEnd[T, PT]) Trailer() metadata.MD         { return nil }
func (c clientEnd[T, PT]) CloseSend() error             { return nil }
func (c clientEnd[T, PT]) SendMsg(any) error            { return nil }
func (c clientEnd[T, PT]) RecvMsg(m any) error {
	t, ok := m.(PT)
	if !ok {
		return fmt.Errorf("receive %T from a stream of %T", m, t)
	}
	got, err := c.Recv()
	if err != nil {
		return err
	}
	proto.Reset(t)
	proto.Merge(t, PT(got))
	return nil
}

func (c inProcess) ListPackages(ctx context.Context, in *api.ListPackageRequest, _ ...grpc.CallOption) (grpc.ServerStreamingClient[api.PackageName], error) {
	return stream[*api.ListPackageRequest, api.PackageName, *api.PackageName](ctx, in, c.memo, c.srv.ListPackages, c.wire.ListPackages)
}

func (c inProcess) GetPackage(ctx context.Context, in *api.GetPackageRequest, _ ...grpc.CallOption) (*api.Package, error) {
	return unary(ctx, in, c.memo, c.srv.GetPackage, c.wire.GetPackage)
}

func (c inProcess) GetBundle(ctx context.Context, in *api.GetBundleRequest, _ ...grpc.CallOption) (*api.Bundle, error) {
	return unary(ctx, in, c.memo, c.srv.GetBundle, c.wire.GetBundle)
}

func (c inProcess) GetBundleForChannel(ctx context.Context, in *api.GetBundleInChannelRequest, _ ...grpc.CallOption) (*api.Bundle, error) {
	//lint:ignore SA1019 the in-process client serves every RPC of the wire API, the deprecated one included
	return unary(ctx, in, c.memo, c.srv.GetBundleForChannel, c.wire.GetBundleForChannel)
}

func (c inProcess) GetChannelEntriesThatReplace(ctx context.Context, in *api.GetAllReplacementsRequest, _ ...grpc.CallOption) (grpc.ServerStreamingClient[api.ChannelEntry], error) {
	return stream[*api.GetAllReplacementsRequest, api.ChannelEntry, *api.ChannelEntry](ctx, in, c.memo, c.srv.GetChannelEntriesThatReplace, c.wire.GetChannelEntriesThatReplace)
}

func (c inProcess) GetBundleThatReplaces(ctx context.Context, in *api.GetReplacementRequest, _ ...grpc.CallOption) (*api.Bundle, error) {
	return unary(ctx, in, c.memo, c.srv.GetBundleThatReplaces, c.wire.GetBundleThatReplaces)
}

func (c inProcess) GetChannelEntriesThatProvide(ctx context.Context, in *api.GetAllProvidersRequest, _ ...grpc.CallOption) (grpc.ServerStreamingClient[api.ChannelEntry], error) {
	return stream[*api.GetAllProvidersRequest, api.ChannelEntry, *api.ChannelEntry](ctx, in, c.memo, c.srv.GetChannelEntriesThatProvide, c.wire.GetChannelEntriesThatProvide)
}

func (c inProcess) GetLatestChannelEntriesThatProvide(ctx context.Context, in *api.GetLatestProvidersRequest, _ ...grpc.CallOption) (grpc.ServerStreamingClient[api.ChannelEntry], error) {
	return stream[*api.GetLatestProvidersRequest, api.ChannelEntry, *api.ChannelEntry](ctx, in, c.memo, c.srv.GetLatestChannelEntriesThatProvide, c.wire.GetLatestChannelEntriesThatProvide)
}

func (c inProcess) GetDefaultBundleThatProvides(ctx context.Context, in *api.GetDefaultProviderRequest, _ ...grpc.CallOption) (*api.Bundle, error) {
	return unary(ctx, in, c.memo, c.srv.GetDefaultBundleThatProvides, c.wire.GetDefaultBundleThatProvides)
}

func (c inProcess) ListBundles(ctx context.Context, in *api.ListBundlesRequest, _ ...grpc.CallOption) (grpc.ServerStreamingClient[api.Bundle], error) {
	return stream[*api.ListBundlesRequest, api.Bundle, *api.Bundle](ctx, in, c.memo, c.srv.ListBundles, c.wire.ListBundles)
}
