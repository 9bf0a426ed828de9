package registry_test

import (
	"context"
	"net"
	"testing"

	"github.com/stretchr/testify/require"

	healthgrpc "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/operator-catalog/olmcat/internal/testutil/catalogtest"
	"github.com/operator-catalog/olmcat/registry"
	"github.com/operator-catalog/olmcat/registry/source"
)

// benchHealthy measures what a CatalogSource probe waits for: from opening
// the catalog to the first SERVING health answer over loopback TCP.
func benchHealthy(b *testing.B, bundles int, cached bool) {
	b.Helper()
	dir := catalogtest.Dir(b, catalogtest.WithBundles(bundles), catalogtest.WithBundlesPerPackage(12))
	var opts []source.Option
	if cached {
		opts = append(opts, source.WithCacheDir(b.TempDir()))
		q, _, err := source.Open(context.Background(), dir, opts...)
		require.NoError(b, err)
		q.Close()
	}
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		q, _, err := source.Open(ctx, dir, opts...)
		require.NoError(b, err)
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(b, err)
		done := make(chan error, 1)
		go func() { done <- registry.Serve(ctx, lis, q) }()
		conn, err := dial(lis.Addr().String())
		require.NoError(b, err)
		resp, err := healthgrpc.NewHealthClient(conn).Check(ctx, &healthgrpc.HealthCheckRequest{})
		require.NoError(b, err, "health")
		require.Equal(b, healthgrpc.HealthCheckResponse_SERVING, resp.GetStatus(), "health")
		b.StopTimer()
		conn.Close()
		cancel()
		require.NoError(b, <-done)
		q.Close()
		b.StartTimer()
	}
}

// BenchmarkServeHealthy764: opm serve took 8.1 s to become healthy on a
// 764-bundle catalog.
func BenchmarkServeHealthy764(b *testing.B) { benchHealthy(b, 764, false) }

// BenchmarkServeHealthy764Cached is the same restart with --cache-dir.
func BenchmarkServeHealthy764Cached(b *testing.B) { benchHealthy(b, 764, true) }
