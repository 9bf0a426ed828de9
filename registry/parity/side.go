package parity

import (
	"context"
	"errors"
	"fmt"
	"net"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/proto"

	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/registry"
	"github.com/operator-catalog/olmcat/registry/api"
	"github.com/operator-catalog/olmcat/registry/source"
)

// maxMessageSize is the client's receive limit. GetBundle answers carry
// every manifest of a bundle and exceed grpc-go's 4 MiB default for large
// CRDs; the checker must see them rather than fail.
const maxMessageSize = 256 << 20

// codec is the proto codec of parity's connections (both ends of an
// in-process side). grpc's own codec gathers each received message into a
// buffer of its default pool, which has no tier between 32 KiB and 1 MiB
// and zeroes a whole buffer on reuse: every GetBundle answer (tens of KiB)
// would clear a megabyte. This one unmarshals a message received in one
// piece in place and gathers the others into a buffer of their size.
type codec struct{}

func (codec) Marshal(v any) (mem.BufferSlice, error) {
	m, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("marshal %T: not a proto message", v)
	}
	b, err := proto.Marshal(m)
	if err != nil {
		return nil, err
	}
	return mem.BufferSlice{mem.SliceBuffer(b)}, nil
}

func (codec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return fmt.Errorf("unmarshal %T: not a proto message", v)
	}
	if len(data) == 1 {
		return proto.Unmarshal(data[0].ReadOnlyData(), m)
	}
	buf := make([]byte, 0, data.Len())
	for _, b := range data {
		buf = append(buf, b.ReadOnlyData()...)
	}
	return proto.Unmarshal(buf, m)
}

func (codec) Name() string { return "proto" }

// side is one catalog being checked, reachable through client.
type side struct {
	ref    string
	kind   input.Kind
	client api.RegistryClient
	close  func() error
}

// openSide connects to ref: a live server is dialled as is; a local
// catalog is opened and answered by the registry server olmcat serve
// uses, in process (see inProcess; the same server behind an in-memory
// gRPC connection answers what the wire cannot carry), or with loopback
// served on a fresh 127.0.0.1 port and dialled like a live one.
func openSide(ctx context.Context, ref string, loopback bool) (*side, error) {
	in, err := input.Classify(ref)
	if err != nil {
		return nil, fmt.Errorf("open side %s: %w", ref, err)
	}
	dialOpts := []grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessageSize), grpc.ForceCodecV2(codec{})),
	}
	if in.Kind == input.KindGRPC {
		conn, err := grpc.NewClient(in.Addr, dialOpts...)
		if err != nil {
			return nil, fmt.Errorf("dial %s: %w", ref, err)
		}
		return &side{ref: ref, kind: in.Kind, client: api.NewRegistryClient(conn), close: conn.Close}, nil
	}

	q, err := source.OpenInput(ctx, in)
	if err != nil {
		return nil, err // it names the catalog
	}
	if loopback {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			q.Close()
			return nil, fmt.Errorf("serve %s: listen on loopback: %w", ref, err)
		}
		client, stop, err := serveQuerier(q, lis, lis.Addr().String(), dialOpts...)
		if err != nil {
			q.Close()
			return nil, fmt.Errorf("dial in-process server for %s: %w", ref, err)
		}
		return &side{ref: ref, kind: in.Kind, client: client, close: func() error { return errors.Join(stop(), q.Close()) }}, nil
	}
	lis := bufconn.Listen(1 << 20)
	dial := grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) })
	wire, stop, err := serveQuerier(q, lis, "passthrough:///in-memory", append(dialOpts, dial)...)
	if err != nil {
		q.Close()
		return nil, fmt.Errorf("dial in-memory server for %s: %w", ref, err)
	}
	return &side{ref: ref, kind: in.Kind, client: inProcess{srv: registry.NewServer(q), wire: wire, memo: &utf8Memo{}},
		close: func() error { return errors.Join(stop(), q.Close()) }}, nil
}

// serveQuerier serves q with the registry gRPC server on lis and dials it
// at target; stop closes the connection and stops the server.
func serveQuerier(q registry.Querier, lis net.Listener, target string, dialOpts ...grpc.DialOption) (api.RegistryClient, func() error, error) {
	srv := registry.NewGRPCServer(q, registry.WithServerOptions(grpc.MaxSendMsgSize(maxMessageSize), grpc.ForceServerCodecV2(codec{})))
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	conn, err := grpc.NewClient(target, dialOpts...)
	if err != nil {
		srv.Stop()
		<-served
		return nil, nil, err
	}
	return api.NewRegistryClient(conn), func() error {
		cerr := conn.Close()
		srv.Stop()
		serr := <-served
		if errors.Is(serr, grpc.ErrServerStopped) {
			serr = nil
		}
		return errors.Join(cerr, serr)
	}, nil
}
