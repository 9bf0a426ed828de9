package registry_test

import (
	"context"
	"net"
	"testing"

	healthgrpc "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/operator-catalog/olmcat/registry"
	"github.com/operator-catalog/olmcat/registry/internal/catalogtest"
	"github.com/operator-catalog/olmcat/registry/source"
)

// benchHealthy measures what a CatalogSource probe waits for: from opening
// the catalog to the first SERVING health answer over loopback TCP.
func benchHealthy(b *testing.B, bundles int, cached bool) {
	dir := b.TempDir()
	if err := catalogtest.Generate(dir, bundles); err != nil {
		b.Fatal(err)
	}
	var opts []source.Option
	if cached {
		opts = append(opts, source.WithCacheDir(b.TempDir()))
		q, _, err := source.Open(context.Background(), dir, opts...)
		if err != nil {
			b.Fatal(err)
		}
		q.Close()
	}
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		q, _, err := source.Open(ctx, dir, opts...)
		if err != nil {
			b.Fatal(err)
		}
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- registry.Serve(ctx, lis, q) }()
		conn, err := dial(lis.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		resp, err := healthgrpc.NewHealthClient(conn).Check(ctx, &healthgrpc.HealthCheckRequest{})
		if err != nil || resp.GetStatus() != healthgrpc.HealthCheckResponse_SERVING {
			b.Fatalf("health: %v %v", resp, err)
		}
		b.StopTimer()
		conn.Close()
		cancel()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		q.Close()
		b.StartTimer()
	}
}

// BenchmarkServeHealthy764: opm serve took 8.1 s to become healthy on a
// 764-bundle catalog.
func BenchmarkServeHealthy764(b *testing.B) { benchHealthy(b, 764, false) }

// BenchmarkServeHealthy764Cached is the same restart with --cache-dir.
func BenchmarkServeHealthy764Cached(b *testing.B) { benchHealthy(b, 764, true) }
