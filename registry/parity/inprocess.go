package parity

import (
	"context"
	"fmt"
	"io"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/operator-catalog/olmcat/registry/api"
)

// inProcess is an api.RegistryClient that calls a registry server's
// handlers directly: the same answers as over the wire, without encoding
// each one twice and copying it through a socket. An answer the wire
// could not carry (a string that is not UTF-8: grpc refuses to marshal
// it) is the error a client would get instead, as over the wire.
type inProcess struct{ srv api.RegistryServer }

// unary calls a unary handler and checks its answer.
func unary[Req any, Resp proto.Message](ctx context.Context, in Req, h func(context.Context, Req) (Resp, error)) (Resp, error) {
	out, err := h(ctx, in)
	if err != nil {
		var zero Resp
		return zero, err
	}
	if err := wireable(out); err != nil {
		var zero Resp
		return zero, err
	}
	return out, nil
}

// wireable returns the error grpc gives for a message it cannot marshal.
func wireable(m proto.Message) error {
	if !validUTF8(m.ProtoReflect()) {
		return status.Error(codes.Internal, "grpc: error while marshaling: string field contains invalid UTF-8")
	}
	return nil
}

// validUTF8 reports whether every string in m, nested ones included, is
// UTF-8 (proto3 strings must be; api.proto declares no other syntax).
func validUTF8(m protoreflect.Message) bool {
	ok := true
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Kind() == protoreflect.StringKind && fd.IsList():
			for i := range v.List().Len() {
				ok = ok && utf8.ValidString(v.List().Get(i).String())
			}
		case fd.Kind() == protoreflect.StringKind:
			ok = utf8.ValidString(v.String())
		case fd.Message() != nil && fd.IsList():
			for i := range v.List().Len() {
				ok = ok && validUTF8(v.List().Get(i).Message())
			}
		case fd.Message() != nil && !fd.IsMap():
			ok = validUTF8(v.Message())
		}
		return ok
	})
	return ok
}

// stream runs a server-streaming handler in its own goroutine and returns
// the client end: messages pass one at a time, so a long answer
// (ListBundles) is never held whole.
func stream[Req any, T any, PT interface {
	*T
	proto.Message
}](ctx context.Context, in Req, h func(Req, grpc.ServerStreamingServer[T]) error) (grpc.ServerStreamingClient[T], error) {
	ctx, cancel := context.WithCancel(ctx)
	p := &pipe[T]{ctx: ctx, cancel: cancel, ch: make(chan *T, 16)}
	go func() {
		p.err = h(in, serverEnd[T, PT]{p})
		close(p.ch)
	}()
	return clientEnd[T, PT]{p}, nil
}

// pipe carries one stream's messages from the handler to the caller.
type pipe[T any] struct {
	ctx    context.Context
	cancel context.CancelFunc
	ch     chan *T
	err    error // the handler's error, set before ch is closed
}

// serverEnd is the handler's side of a pipe.
type serverEnd[T any, PT interface {
	*T
	proto.Message
}] struct{ p *pipe[T] }

func (s serverEnd[T, PT]) Send(m *T) error {
	if err := wireable(PT(m)); err != nil {
		return err
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
	return stream[*api.ListPackageRequest, api.PackageName, *api.PackageName](ctx, in, c.srv.ListPackages)
}

func (c inProcess) GetPackage(ctx context.Context, in *api.GetPackageRequest, _ ...grpc.CallOption) (*api.Package, error) {
	return unary(ctx, in, c.srv.GetPackage)
}

func (c inProcess) GetBundle(ctx context.Context, in *api.GetBundleRequest, _ ...grpc.CallOption) (*api.Bundle, error) {
	return unary(ctx, in, c.srv.GetBundle)
}

func (c inProcess) GetBundleForChannel(ctx context.Context, in *api.GetBundleInChannelRequest, _ ...grpc.CallOption) (*api.Bundle, error) {
	return unary(ctx, in, c.srv.GetBundleForChannel)
}

func (c inProcess) GetChannelEntriesThatReplace(ctx context.Context, in *api.GetAllReplacementsRequest, _ ...grpc.CallOption) (grpc.ServerStreamingClient[api.ChannelEntry], error) {
	return stream[*api.GetAllReplacementsRequest, api.ChannelEntry, *api.ChannelEntry](ctx, in, c.srv.GetChannelEntriesThatReplace)
}

func (c inProcess) GetBundleThatReplaces(ctx context.Context, in *api.GetReplacementRequest, _ ...grpc.CallOption) (*api.Bundle, error) {
	return unary(ctx, in, c.srv.GetBundleThatReplaces)
}

func (c inProcess) GetChannelEntriesThatProvide(ctx context.Context, in *api.GetAllProvidersRequest, _ ...grpc.CallOption) (grpc.ServerStreamingClient[api.ChannelEntry], error) {
	return stream[*api.GetAllProvidersRequest, api.ChannelEntry, *api.ChannelEntry](ctx, in, c.srv.GetChannelEntriesThatProvide)
}

func (c inProcess) GetLatestChannelEntriesThatProvide(ctx context.Context, in *api.GetLatestProvidersRequest, _ ...grpc.CallOption) (grpc.ServerStreamingClient[api.ChannelEntry], error) {
	return stream[*api.GetLatestProvidersRequest, api.ChannelEntry, *api.ChannelEntry](ctx, in, c.srv.GetLatestChannelEntriesThatProvide)
}

func (c inProcess) GetDefaultBundleThatProvides(ctx context.Context, in *api.GetDefaultProviderRequest, _ ...grpc.CallOption) (*api.Bundle, error) {
	return unary(ctx, in, c.srv.GetDefaultBundleThatProvides)
}

func (c inProcess) ListBundles(ctx context.Context, in *api.ListBundlesRequest, _ ...grpc.CallOption) (grpc.ServerStreamingClient[api.Bundle], error) {
	return stream[*api.ListBundlesRequest, api.Bundle, *api.Bundle](ctx, in, c.srv.ListBundles)
}
