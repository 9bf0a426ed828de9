package serve_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/operator-catalog/olmcat/action/serve"
	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/registry/api"
)

// The fixtures served: a catalog directory of three packages and the
// sqlite index it was migrated from.
const (
	smallCatalog = "../../fixtures/legacy/small-fbb/opm-migrate"
	smallIndex   = "../../fixtures/legacy/small-fbb/index.db"
)

// addrHandler is a slog.Handler that hands on the address a server
// logs it is listening on.
type addrHandler struct{ addr chan string }

func (h addrHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h addrHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h addrHandler) WithGroup(string) slog.Handler            { return h }
func (h addrHandler) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, "listening on ") {
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "address" {
				h.addr <- a.Value.String()
			}
			return true
		})
	}
	return nil
}

// start runs s until the test ends and returns a connection to the port
// it bound (0 picks one, which its log tells) and Run's error, which
// arrives once the test cancels the run.
func start(t *testing.T, s serve.Serve) (*grpc.ClientConn, <-chan error, context.CancelFunc) {
	t.Helper()
	h := addrHandler{addr: make(chan string, 1)}
	s.Logger = slog.New(h)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.Run(ctx)
		done <- err
	}()
	t.Cleanup(cancel)
	var addr string
	select {
	case addr = <-h.addr:
	case err := <-done:
		require.FailNow(t, "Run returned before listening", "%v", err)
	case <-time.After(30 * time.Second):
		require.FailNow(t, "no address logged")
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	return conn, done, cancel
}

// profile records what a run told its Profiler.
type profile struct{ ready, stopped chan struct{} }

func (p profile) Ready() { close(p.ready) }
func (p profile) Stop()  { close(p.stopped) }

// resolve is Serve.Open without images.
func resolve(ctx context.Context, ref string) (*input.Input, error) {
	return input.Resolve(ctx, ref, input.Catalog)
}

// health waits for the server's health to be want.
func health(t *testing.T, conn *grpc.ClientConn, want healthpb.HealthCheckResponse_ServingStatus) {
	t.Helper()
	c := healthpb.NewHealthClient(conn)
	assert.EventuallyWithT(t, func(c2 *assert.CollectT) {
		resp, err := c.Check(context.Background(), &healthpb.HealthCheckRequest{})
		if assert.NoError(c2, err) {
			assert.Equal(c2, want, resp.GetStatus())
		}
	}, 30*time.Second, 20*time.Millisecond)
}

func TestServeServes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		catalog string
		sqlite  bool
	}{
		{name: "declarative config", catalog: smallCatalog},
		{name: "sqlite index", catalog: smallIndex, sqlite: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			told := false
			p := profile{ready: make(chan struct{}), stopped: make(chan struct{})}
			conn, done, cancel := start(t, serve.Serve{Catalog: tc.catalog, Open: resolve, WatchInterval: time.Second,
				OnSQLite:      func(context.Context, *input.Input) error { told = true; return nil },
				StartProfiler: func(context.Context) (serve.Profiler, error) { return p, nil }})
			health(t, conn, healthpb.HealthCheckResponse_SERVING)
			<-p.ready
			stream, err := api.NewRegistryClient(conn).ListPackages(context.Background(), &api.ListPackageRequest{})
			require.NoError(t, err)
			var names []string
			for {
				p, err := stream.Recv()
				if err != nil {
					break
				}
				names = append(names, p.GetName())
			}
			assert.ElementsMatch(t, []string{"bar", "baz", "foo"}, names)
			assert.Equal(t, tc.sqlite, told)
			cancel()
			assert.NoError(t, <-done)
			<-p.stopped
		})
	}
}

func TestServeRefusals(t *testing.T) {
	refused := errors.New("no sqlite here")
	for _, tc := range []struct {
		name string
		s    serve.Serve
		err  string
	}{
		{name: "sqlite refused", s: serve.Serve{Catalog: smallIndex,
			OnSQLite: func(context.Context, *input.Input) error { return refused }}, err: refused.Error()},
		{name: "missing catalog", s: serve.Serve{Catalog: "testdata/missing"}, err: "testdata/missing"},
		{name: "cache in the catalog", s: serve.Serve{Catalog: smallCatalog, CacheDir: smallCatalog + "/cache"}, err: "cache directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.s.Open, tc.s.Logger = resolve, slog.New(addrHandler{addr: make(chan string, 1)})
			_, err := tc.s.Run(context.Background())
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
}

// TestServeHoldsOnLoadError: held, a catalog that does not open is
// served NOT_SERVING, and Run returns why once stopped.
func TestServeHoldsOnLoadError(t *testing.T) {
	conn, done, cancel := start(t, serve.Serve{Catalog: "testdata/missing", Open: resolve, HoldOnLoadError: true})
	health(t, conn, healthpb.HealthCheckResponse_NOT_SERVING)
	cancel()
	err := <-done
	require.Error(t, err)
	assert.Contains(t, err.Error(), "testdata/missing")
}

// TestServeCacheOnly: CacheOnly writes the cache and returns, and the
// next run with the cache's integrity enforced starts from it.
func TestServeCacheOnly(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "cache")
	_, err := serve.Serve{Catalog: smallCatalog, Open: resolve, CacheDir: cache, CacheOnly: true,
		Logger: slog.New(addrHandler{addr: make(chan string, 1)})}.Run(context.Background())
	require.NoError(t, err)
	entries, err := os.ReadDir(cache)
	require.NoError(t, err)
	assert.NotEmpty(t, entries)
	conn, done, cancel := start(t, serve.Serve{Catalog: smallCatalog, Open: resolve, CacheDir: cache, CacheIntegrity: true})
	health(t, conn, healthpb.HealthCheckResponse_SERVING)
	cancel()
	assert.NoError(t, <-done)
}
