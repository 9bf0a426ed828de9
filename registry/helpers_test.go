package registry_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/operator-catalog/olmcat/registry"
	"github.com/operator-catalog/olmcat/registry/api"
	"github.com/operator-catalog/olmcat/registry/declcfgquery"
)

// fixturesDir holds the real legacy databases with opm's outputs and the
// real servers' answers.
const fixturesDir = "../fixtures/legacy"

// serve starts registry.Serve for q on a loopback port and returns a
// connection to it; cleanup stops the server and checks Serve's result.
func serve(t testing.TB, q registry.Querier, opts ...registry.Option) *grpc.ClientConn {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- registry.Serve(ctx, lis, q, opts...) }()
	conn, err := dial(lis.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() {
		conn.Close()
		cancel()
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(30 * time.Second):
			assert.Fail(t, "Serve did not return after its context was cancelled")
		}
	})
	return conn
}

// loadFixture loads fixtures/legacy/<name>/opm-migrate.
func loadFixture(t testing.TB, name string) *declcfgquery.Querier {
	t.Helper()
	q, err := declcfgquery.Load(context.Background(), fixturesDir+"/"+name+"/opm-migrate")
	require.NoError(t, err)
	t.Cleanup(func() { q.Close() })
	return q
}

func client(t testing.TB, q registry.Querier) api.RegistryClient {
	t.Helper()
	return api.NewRegistryClient(serve(t, q))
}

// dial connects a plaintext client to addr.
func dial(addr string) (*grpc.ClientConn, error) {
	return grpc.NewClient(addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20)))
}
