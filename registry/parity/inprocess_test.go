package parity

import (
	"context"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/operator-catalog/olmcat/registry/api"
)

// Served in process or over loopback gRPC, every fixture's check gives
// the same result: the in-process client changes nothing but the cost.
func TestInProcessMatchesLoopback(t *testing.T) {
	for _, name := range fixtureNames(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			wire, err := Check(ctx, fixtureDB(name), fixtureOPM(name), WithLoopback(true))
			require.NoError(t, err)
			local, err := Check(ctx, fixtureDB(name), fixtureOPM(name))
			require.NoError(t, err)
			assert.Equal(t, wire.Stats, local.Stats)
			assert.Equal(t, wire.RulesSeen, local.RulesSeen)
			assert.Equal(t, wire.Graph, local.Graph)
			assert.Equal(t, wire.Diffs, local.Diffs)
		})
	}
}

// wireable and validUTF8 flag exactly the messages proto.Marshal refuses.
func TestValidUTF8AgreesWithMarshal(t *testing.T) {
	bad := string([]byte{0xff, 0xfe})
	tests := []struct {
		name string
		m    proto.Message
	}{
		{"valid", &api.Bundle{CsvName: "a", Skips: []string{"b"}, Properties: []*api.Property{{Type: "t", Value: "{}"}}}},
		{"top-level string", &api.Bundle{CsvJson: bad}},
		{"repeated string", &api.Bundle{Skips: []string{"ok", bad}}},
		{"nested message", &api.Bundle{Properties: []*api.Property{{Type: "t", Value: bad}}}},
		{"single nested message", &api.Package{Deprecation: &api.Deprecation{Message: bad}}},
		{"list of nested messages", &api.Package{Channels: []*api.Channel{{Name: "c", CsvName: bad}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, marshalErr := proto.Marshal(tt.m)
			assert.Equal(t, marshalErr == nil, validUTF8(tt.m.ProtoReflect()))
			assert.Equal(t, marshalErr == nil, wireable(tt.m, nil))
		})
	}
}

// notUTF8Server answers GetBundle and ListBundles with a string that is
// not UTF-8 (ListBundles after a valid bundle), which grpc cannot marshal.
type notUTF8Server struct {
	api.UnimplementedRegistryServer
}

var notUTF8 = string([]byte{0xff, 0xfe})

func (notUTF8Server) GetBundle(context.Context, *api.GetBundleRequest) (*api.Bundle, error) {
	return &api.Bundle{CsvName: "a", CsvJson: notUTF8}, nil
}

func (notUTF8Server) GetPackage(context.Context, *api.GetPackageRequest) (*api.Package, error) {
	return &api.Package{Name: "p"}, nil
}

func (notUTF8Server) ListBundles(_ *api.ListBundlesRequest, s grpc.ServerStreamingServer[api.Bundle]) error {
	if err := s.Send(&api.Bundle{CsvName: "a"}); err != nil {
		return err
	}
	return s.Send(&api.Bundle{CsvName: "b", Skips: []string{notUTF8}})
}

// In process, an answer the wire cannot carry is grpc's own error, as a
// client over loopback gets it; what the wire carries is the same.
func TestInProcessAnswersAsTheWire(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := grpc.NewServer()
	api.RegisterRegistryServer(srv, notUTF8Server{})
	go srv.Serve(lis)
	defer srv.Stop()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	wire := api.NewRegistryClient(conn)
	local := inProcess{srv: notUTF8Server{}, wire: wire}
	ctx := context.Background()

	for _, c := range []api.RegistryClient{wire, local} {
		p, err := c.GetPackage(ctx, &api.GetPackageRequest{Name: "p"})
		require.NoError(t, err)
		assert.Equal(t, "p", p.GetName())
	}
	_, wireErr := wire.GetBundle(ctx, &api.GetBundleRequest{})
	_, localErr := local.GetBundle(ctx, &api.GetBundleRequest{})
	require.Error(t, wireErr)
	assert.Equal(t, status.Convert(wireErr).Proto(), status.Convert(localErr).Proto(), "GetBundle")

	drain := func(c api.RegistryClient) ([]string, error) {
		s, err := c.ListBundles(ctx, &api.ListBundlesRequest{})
		require.NoError(t, err)
		var names []string
		for {
			b, err := s.Recv()
			if err != nil {
				return names, err
			}
			names = append(names, b.GetCsvName())
		}
	}
	wireNames, wireErr := drain(wire)
	localNames, localErr := drain(local)
	assert.Equal(t, []string{"a"}, wireNames)
	assert.Equal(t, wireNames, localNames)
	require.Equal(t, codes.Internal, status.Code(wireErr))
	assert.Equal(t, status.Convert(wireErr).Proto(), status.Convert(localErr).Proto(), "ListBundles")
}
