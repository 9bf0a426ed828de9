package registry_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	healthgrpc "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/operator-catalog/olmcat/legacy"
	"github.com/operator-catalog/olmcat/registry"
	"github.com/operator-catalog/olmcat/registry/api"
	"github.com/operator-catalog/olmcat/registry/legacyquery"
)

// TestServeLoadingNotServingUntilLoaded serves while the catalog loads:
// health says NOT_SERVING and api.Registry calls fail with Unavailable
// until load returns, then SERVING and real answers.
func TestServeLoadingNotServingUntilLoaded(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	release := make(chan struct{})
	load := func(context.Context) (registry.Querier, error) {
		<-release
		return loadFixture(t, "small-fbb"), nil
	}
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- registry.ServeLoading(ctx, lis, load, func(registry.Querier) { close(ready) })
	}()
	conn, err := dial(lis.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	h := healthgrpc.NewHealthClient(conn)
	c := api.NewRegistryClient(conn)

	resp, err := h.Check(ctx, &healthgrpc.HealthCheckRequest{})
	require.NoError(t, err)
	assert.Equal(t, healthgrpc.HealthCheckResponse_NOT_SERVING, resp.GetStatus())
	_, err = c.GetPackage(ctx, &api.GetPackageRequest{Name: "foo"})
	assert.Equal(t, codes.Unavailable, status.Code(err), "%v", err)

	close(release)
	<-ready
	resp, err = h.Check(ctx, &healthgrpc.HealthCheckRequest{})
	require.NoError(t, err)
	assert.Equal(t, healthgrpc.HealthCheckResponse_SERVING, resp.GetStatus())
	p, err := c.GetPackage(ctx, &api.GetPackageRequest{Name: "foo"})
	require.NoError(t, err)
	assert.Equal(t, "beta", p.GetDefaultChannelName())
	cancel()
	require.NoError(t, <-done)
}

// TestServeLoadingLoadError: a failed load stops the server and is returned.
func TestServeLoadingLoadError(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	boom := errors.New("boom")
	err = registry.ServeLoading(context.Background(), lis, func(context.Context) (registry.Querier, error) { return nil, boom }, nil)
	require.ErrorIs(t, err, boom)
}

// TestSQLiteRewrittenUnderServerIsNotServing rewrites the database file in
// place under a running sqlite server: health must turn NOT_SERVING
// instead of answering from a file sqlite was told never changes.
func TestSQLiteRewrittenUnderServerIsNotServing(t *testing.T) {
	src, err := os.ReadFile(fixturesDir + "/small-fbb/index.db")
	require.NoError(t, err)
	other, err := os.ReadFile(fixturesDir + "/observability-operator/index.db")
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "index.db")
	require.NoError(t, os.WriteFile(path, src, 0o644))
	db, err := legacy.Open(context.Background(), path, legacy.SkipManifests())
	require.NoError(t, err)
	q, err := legacyquery.New(context.Background(), db)
	require.NoError(t, err)
	defer q.Close()
	conn := serve(t, q)
	h := healthgrpc.NewHealthClient(conn)
	c := api.NewRegistryClient(conn)
	check := func() healthgrpc.HealthCheckResponse_ServingStatus {
		resp, err := h.Check(context.Background(), &healthgrpc.HealthCheckRequest{})
		require.NoError(t, err)
		return resp.GetStatus()
	}
	require.Equal(t, healthgrpc.HealthCheckResponse_SERVING, check())
	_, err = c.GetPackage(context.Background(), &api.GetPackageRequest{Name: "foo"})
	require.NoError(t, err)

	// Same inode, new bytes (what cp onto the file does).
	time.Sleep(10 * time.Millisecond)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	require.NoError(t, err)
	_, err = f.Write(other)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	assert.Equal(t, healthgrpc.HealthCheckResponse_NOT_SERVING, check())
	_, err = c.GetPackage(context.Background(), &api.GetPackageRequest{Name: "foo"})
	assert.Equal(t, codes.Unavailable, status.Code(err), "no answer from a changed file: %v", err)
}
