package registry_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	healthgrpc "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/legacy"
	"github.com/operator-catalog/olmcat/registry"
	"github.com/operator-catalog/olmcat/registry/api"
	"github.com/operator-catalog/olmcat/registry/legacyquery"
	"github.com/operator-catalog/olmcat/registry/source"
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

// TestServeLoadingHoldsLoadError: with WithHoldOnLoadError a failed
// load keeps the server up, health NOT_SERVING and api.Registry calls
// Unavailable with the load's error, logged once, until the context
// ends; the error is returned then.
func TestServeLoadingHoldsLoadError(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	boom := errors.New(`default channel "missing" not found`)
	var log syncBuffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	done := make(chan error, 1)
	go func() {
		done <- registry.ServeLoading(ctx, lis, func(context.Context) (registry.Querier, error) { return nil, boom }, nil,
			registry.WithHoldOnLoadError(), registry.WithLogger(logger))
	}()
	conn, err := dial(lis.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	h := healthgrpc.NewHealthClient(conn)
	c := api.NewRegistryClient(conn)
	require.Eventually(t, func() bool {
		_, err := c.GetPackage(ctx, &api.GetPackageRequest{Name: "foo"})
		return strings.Contains(status.Convert(err).Message(), boom.Error())
	}, 5*time.Second, 10*time.Millisecond)
	for range 3 {
		resp, err := h.Check(ctx, &healthgrpc.HealthCheckRequest{})
		require.NoError(t, err)
		assert.Equal(t, healthgrpc.HealthCheckResponse_NOT_SERVING, resp.GetStatus())
		_, err = c.GetPackage(ctx, &api.GetPackageRequest{Name: "foo"})
		assert.Equal(t, codes.Unavailable, status.Code(err), "%v", err)
		assert.Equal(t, "the catalog failed to load: "+boom.Error(), status.Convert(err).Message())
	}
	select {
	case err := <-done:
		require.Fail(t, "stopped before its context ended", "%v", err)
	default:
	}
	cancel()
	require.ErrorIs(t, <-done, boom)
	assert.Equal(t, 1, strings.Count(log.String(), `level=ERROR msg="the catalog failed to load; health NOT_SERVING until the server stops" error="default channel \"missing\" not found"`), log.String())
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

// TestServeLoadingWatchReloads changes the served directory under a
// ServeLoading with a watch: health turns NOT_SERVING at once; with
// reload, a catalog that does not load keeps it NOT_SERVING (the reason
// logged) until the next change, which is loaded and served whole.
func TestServeLoadingWatchReloads(t *testing.T) {
	for _, reload := range []bool{false, true} {
		t.Run(map[bool]string{false: "no reload", true: "reload"}[reload], func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "catalog")
			require.NoError(t, os.CopyFS(dir, os.DirFS(fixturesDir+"/small-fbb/opm-migrate")))
			in, err := input.Classify(dir)
			require.NoError(t, err)
			load := func(ctx context.Context) (registry.Querier, error) { return source.OpenInput(ctx, in) }
			var log syncBuffer
			lis, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			ready := make(chan struct{})
			go func() {
				done <- registry.ServeLoading(ctx, lis, load, func(registry.Querier) { close(ready) },
					registry.WithWatch(source.Fingerprint(in, ""), 10*time.Millisecond, reload),
					registry.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
			}()
			defer func() { cancel(); require.NoError(t, <-done) }()
			<-ready
			conn, err := dial(lis.Addr().String())
			require.NoError(t, err)
			defer conn.Close()
			w, err := healthgrpc.NewHealthClient(conn).Watch(ctx, &healthgrpc.HealthCheckRequest{})
			require.NoError(t, err)
			next := func() healthgrpc.HealthCheckResponse_ServingStatus {
				resp, err := w.Recv()
				require.NoError(t, err)
				return resp.GetStatus()
			}
			c := api.NewRegistryClient(conn)
			require.Equal(t, healthgrpc.HealthCheckResponse_SERVING, next())

			// Not a valid catalog: NOT_SERVING, and stays so.
			require.NoError(t, os.WriteFile(filepath.Join(dir, "foo", "broken.json"), []byte("{"), 0o644))
			require.Equal(t, healthgrpc.HealthCheckResponse_NOT_SERVING, next())
			_, err = c.GetPackage(ctx, &api.GetPackageRequest{Name: "foo"})
			require.Equal(t, codes.Unavailable, status.Code(err), "%v", err)
			require.ErrorContains(t, err, "changed on disk")
			if reload {
				require.Eventually(t, func() bool { return strings.Contains(log.String(), "reload failed") }, 10*time.Second, 5*time.Millisecond)
			}
			time.Sleep(50 * time.Millisecond)
			_, err = c.GetPackage(ctx, &api.GetPackageRequest{Name: "foo"})
			require.Equal(t, codes.Unavailable, status.Code(err), "%v", err)

			// Valid again, with a package renamed: served whole after a reload.
			// The broken file goes last, so that the watch, which may load
			// any state in between, sees no valid catalog before the final one.
			b, err := os.ReadFile(filepath.Join(dir, "bar", "catalog.json"))
			require.NoError(t, err)
			staged := filepath.Join(filepath.Dir(dir), "bar2")
			require.NoError(t, os.MkdirAll(staged, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(staged, "catalog.json"), []byte(strings.ReplaceAll(string(b), `"bar`, `"bar2`)), 0o644))
			require.NoError(t, os.Rename(staged, filepath.Join(dir, "bar2")))
			require.NoError(t, os.RemoveAll(filepath.Join(dir, "bar")))
			require.NoError(t, os.Remove(filepath.Join(dir, "foo", "broken.json")))
			if !reload {
				time.Sleep(50 * time.Millisecond)
				_, err = c.GetPackage(ctx, &api.GetPackageRequest{Name: "foo"})
				require.Equal(t, codes.Unavailable, status.Code(err), "without reload NOT_SERVING until restarted: %v", err)
				return
			}
			require.Equal(t, healthgrpc.HealthCheckResponse_SERVING, next(), log.String())
			_, err = c.GetPackage(ctx, &api.GetPackageRequest{Name: "bar2"})
			require.NoError(t, err)
			_, err = c.GetPackage(ctx, &api.GetPackageRequest{Name: "bar"})
			require.ErrorContains(t, err, "not found")
		})
	}
}
