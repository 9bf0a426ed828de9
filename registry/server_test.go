package registry_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	healthgrpc "google.golang.org/grpc/health/grpc_health_v1"
	reflectiongrpc "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	"github.com/operator-catalog/olmcat/internal/testutil/catalogtest"
	"github.com/operator-catalog/olmcat/registry"
	"github.com/operator-catalog/olmcat/registry/api"
	"github.com/operator-catalog/olmcat/registry/source"
)

func TestHealthCheckAlwaysServing(t *testing.T) {
	h := healthgrpc.NewHealthClient(serve(t, loadFixture(t, "small-fbb")))
	// The probe tooling sends "", operator-registry's client "Registry";
	// upstream answers SERVING for any name, so olmcat does too.
	for _, svc := range []string{"", "Registry", "api.Registry", "no.such.Service"} {
		resp, err := h.Check(context.Background(), &healthgrpc.HealthCheckRequest{Service: svc})
		require.NoError(t, err, svc)
		require.Equal(t, healthgrpc.HealthCheckResponse_SERVING, resp.GetStatus(), svc)
	}
	// Watch (unimplemented upstream) streams the status and its changes.
	w, err := h.Watch(context.Background(), &healthgrpc.HealthCheckRequest{})
	require.NoError(t, err)
	resp, err := w.Recv()
	require.NoError(t, err)
	require.Equal(t, healthgrpc.HealthCheckResponse_SERVING, resp.GetStatus())
}

func TestReflectionListsServices(t *testing.T) {
	conn := serve(t, loadFixture(t, "small-fbb"))
	stream, err := reflectiongrpc.NewServerReflectionClient(conn).ServerReflectionInfo(context.Background())
	require.NoError(t, err)
	require.NoError(t, stream.Send(&reflectiongrpc.ServerReflectionRequest{
		MessageRequest: &reflectiongrpc.ServerReflectionRequest_ListServices{},
	}))
	resp, err := stream.Recv()
	require.NoError(t, err)
	var names []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	require.Contains(t, names, "api.Registry")
	require.Contains(t, names, "grpc.health.v1.Health")

	// grpcurl describes messages through reflection: the file holding
	// api.Registry must resolve.
	require.NoError(t, stream.Send(&reflectiongrpc.ServerReflectionRequest{
		MessageRequest: &reflectiongrpc.ServerReflectionRequest_FileContainingSymbol{FileContainingSymbol: "api.Registry"},
	}))
	resp, err = stream.Recv()
	require.NoError(t, err)
	require.NotEmpty(t, resp.GetFileDescriptorResponse().GetFileDescriptorProto())
	require.NoError(t, stream.CloseSend())
}

func TestNotFoundIsUnknownWithUpstreamText(t *testing.T) {
	c := client(t, loadFixture(t, "small-fbb"))
	ctx := context.Background()
	_, err := c.GetPackage(ctx, &api.GetPackageRequest{Name: "nope"})
	require.Equal(t, codes.Unknown, status.Code(err))
	require.Equal(t, `package "nope" not found`, status.Convert(err).Message())

	_, err = c.GetBundle(ctx, &api.GetBundleRequest{PkgName: "foo", ChannelName: "beta", CsvName: "nope"})
	require.Equal(t, `package "foo", channel "beta", bundle "nope" not found`, status.Convert(err).Message())

	s, err := c.GetChannelEntriesThatReplace(ctx, &api.GetAllReplacementsRequest{CsvName: "nope"})
	require.NoError(t, err)
	_, err = s.Recv()
	require.Equal(t, codes.Unknown, status.Code(err))
	require.Equal(t, "no channel entries found that replace nope", status.Convert(err).Message())
}

// TestConcurrentClients runs 50 clients, each on its own connection,
// calling every RPC at once against one server (run with -race), for both
// backends.
func TestConcurrentClients(t *testing.T) {
	for _, path := range []string{
		fixturesDir + "/small-fbb/opm-migrate",
		fixturesDir + "/small-fbb/index.db",
	} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			q, _, err := source.Open(context.Background(), path)
			require.NoError(t, err)
			defer q.Close()
			lis, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- registry.Serve(ctx, lis, q) }()
			defer func() {
				cancel()
				require.NoError(t, <-done)
			}()

			const clients = 50
			var wg sync.WaitGroup
			errs := make(chan error, clients)
			for i := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if err := allRPCs(lis.Addr().String()); err != nil {
						errs <- fmt.Errorf("client %d: %w", i, err)
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				assert.NoError(t, err)
			}
		})
	}
}

// allRPCs dials addr and calls every RPC once with arguments that exist in
// small-fbb, checking each answer's shape.
func allRPCs(addr string) error {
	conn, err := dial(addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	c := api.NewRegistryClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	pkgs, err := drain(c.ListPackages(ctx, &api.ListPackageRequest{}))
	if err != nil || len(pkgs) != 3 {
		return fmt.Errorf("ListPackages: %d, %v", len(pkgs), err)
	}
	bundles, err := drain(c.ListBundles(ctx, &api.ListBundlesRequest{}))
	if err != nil || len(bundles) == 0 {
		return fmt.Errorf("ListBundles: %d, %v", len(bundles), err)
	}
	p, err := c.GetPackage(ctx, &api.GetPackageRequest{Name: "foo"})
	if err != nil || p.GetDefaultChannelName() != "beta" {
		return fmt.Errorf("GetPackage: %v, %v", p, err)
	}
	if b, err := c.GetBundle(ctx, &api.GetBundleRequest{PkgName: "foo", ChannelName: "beta", CsvName: "foo.v0.3.1"}); err != nil || b.GetCsvJson() == "" {
		return fmt.Errorf("GetBundle: %v", err)
	}
	//lint:ignore SA1019 the server serves every RPC of the API, the deprecated one included
	if b, err := c.GetBundleForChannel(ctx, &api.GetBundleInChannelRequest{PkgName: "foo", ChannelName: "beta"}); err != nil || b.GetCsvName() != "foo.v0.3.1" {
		return fmt.Errorf("GetBundleForChannel: %v", err)
	}
	if b, err := c.GetBundleThatReplaces(ctx, &api.GetReplacementRequest{CsvName: "foo.v0.1.0", PkgName: "foo", ChannelName: "stable"}); err != nil || b.GetCsvName() == "" {
		return fmt.Errorf("GetBundleThatReplaces: %v", err)
	}
	if es, err := drain(c.GetChannelEntriesThatReplace(ctx, &api.GetAllReplacementsRequest{CsvName: "foo.v0.1.0"})); err != nil || len(es) == 0 {
		return fmt.Errorf("GetChannelEntriesThatReplace: %v", err)
	}
	if es, err := drain(c.GetChannelEntriesThatProvide(ctx, &api.GetAllProvidersRequest{Group: "test.foo", Version: "v1", Kind: "Foo"})); err != nil || len(es) == 0 {
		return fmt.Errorf("GetChannelEntriesThatProvide: %v", err)
	}
	if es, err := drain(c.GetLatestChannelEntriesThatProvide(ctx, &api.GetLatestProvidersRequest{Group: "test.foo", Version: "v1", Kind: "Foo"})); err != nil || len(es) == 0 {
		return fmt.Errorf("GetLatestChannelEntriesThatProvide: %v", err)
	}
	if b, err := c.GetDefaultBundleThatProvides(ctx, &api.GetDefaultProviderRequest{Group: "test.foo", Version: "v1", Kind: "Foo"}); err != nil || b.GetPackageName() != "foo" {
		return fmt.Errorf("GetDefaultBundleThatProvides: %v", err)
	}
	h, err := healthgrpc.NewHealthClient(conn).Check(ctx, &healthgrpc.HealthCheckRequest{})
	if err != nil || h.GetStatus() != healthgrpc.HealthCheckResponse_SERVING {
		return fmt.Errorf("Health.Check: %v", err)
	}
	return nil
}

// TestServeLogsCalls checks the logging interceptor's fields.
func TestServeLogsCalls(t *testing.T) {
	var buf syncBuffer
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	c := api.NewRegistryClient(serve(t, loadFixture(t, "small-fbb"), registry.WithLogger(logger)))
	_, err := c.GetPackage(context.Background(), &api.GetPackageRequest{Name: "nope"})
	require.Error(t, err)
	_, err = drain(c.ListPackages(context.Background(), &api.ListPackageRequest{}))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return strings.Count(buf.String(), "msg=rpc") == 2 }, 10*time.Second, 10*time.Millisecond, "%.2000s", buf.String())
	lines := slices.DeleteFunc(strings.Split(buf.String(), "\n"), func(l string) bool { return !strings.Contains(l, "msg=rpc") })
	require.Contains(t, lines[0], "method=/api.Registry/GetPackage")
	require.Contains(t, lines[0], "code=Unknown")
	require.Contains(t, lines[0], "duration=")
	require.Contains(t, lines[1], "method=/api.Registry/ListPackages")
	require.Contains(t, lines[1], "code=OK")
}

// TestServeStopsGracefully cancels Serve's context with a client
// connected: Serve returns nil and the server stops answering.
func TestServeStopsGracefully(t *testing.T) {
	q := loadFixture(t, "small-fbb")
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- registry.Serve(ctx, lis, q, registry.WithShutdownTimeout(time.Second)) }()
	conn, err := dial(lis.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	c := api.NewRegistryClient(conn)
	_, err = c.GetPackage(context.Background(), &api.GetPackageRequest{Name: "foo"})
	require.NoError(t, err)
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		require.Fail(t, "Serve did not stop")
	}
	_, err = c.GetPackage(context.Background(), &api.GetPackageRequest{Name: "foo"})
	require.Error(t, err, "server still answering after Serve returned")
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

var _ io.Writer = (*syncBuffer)(nil)

// TestServeShutdownIsBounded leaves a large ListBundles stream unread, so
// its handler blocks on flow control and GracefulStop cannot finish: Serve
// must still return after the shutdown timeout, closing the connection.
func TestServeShutdownIsBounded(t *testing.T) {
	// Inline bundles: ListBundles streams every manifest (megabytes).
	dir := catalogtest.Dir(t, catalogtest.WithBundles(400), catalogtest.WithBundlesPerPackage(12), catalogtest.WithoutImages())
	q, _, err := source.Open(context.Background(), dir)
	require.NoError(t, err)
	defer q.Close()

	var logs syncBuffer
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- registry.Serve(ctx, lis, q,
			registry.WithShutdownTimeout(200*time.Millisecond),
			registry.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	}()
	conn, err := dial(lis.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	stream, err := api.NewRegistryClient(conn).ListBundles(context.Background(), &api.ListBundlesRequest{})
	require.NoError(t, err)
	first, err := stream.Recv() // the handler is running and sending
	require.NoError(t, err)
	require.NotEmpty(t, first.GetCsvJson())

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		require.Fail(t, "Serve did not stop: shutdown is not bounded")
	}
	require.Contains(t, logs.String(), "graceful shutdown timed out")
	_, err = drain(stream, nil)
	require.Error(t, err, "the unread stream was cut")
}

// TestLongRequestFieldsAreCut sends a 3 MB csvName to both backends: the
// status message and the log line repeat a few hundred bytes of it and
// its length, not all of it.
func TestLongRequestFieldsAreCut(t *testing.T) {
	long := strings.Repeat("x", 3_000_000)
	sqlite, _, err := source.Open(context.Background(), fixturesDir+"/small-fbb/index.db")
	require.NoError(t, err)
	defer sqlite.Close()
	for _, tc := range []struct {
		name string
		q    registry.Querier
	}{
		{"declcfg", loadFixture(t, "small-fbb")},
		{"sqlite", sqlite},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf syncBuffer
			c := api.NewRegistryClient(serve(t, tc.q, registry.WithLogger(slog.New(slog.NewTextHandler(&buf, nil)))))
			_, err := c.GetBundle(context.Background(), &api.GetBundleRequest{PkgName: "foo", ChannelName: "beta", CsvName: long})
			require.Error(t, err)
			msg := status.Convert(err).Message()
			assert.Less(t, len(msg), 1024, "status message of %d bytes", len(msg))
			assert.Contains(t, msg, "(3000000 bytes in all)")
			_, err = c.GetBundleThatReplaces(context.Background(), &api.GetReplacementRequest{CsvName: long, PkgName: "foo", ChannelName: long[:900_000]})
			require.Error(t, err)
			assert.Less(t, len(status.Convert(err).Message()), 2048)
			require.Eventually(t, func() bool { return strings.Count(buf.String(), "msg=rpc") == 2 }, 10*time.Second, 10*time.Millisecond, "%.2000s", buf.String())
			for line := range strings.SplitSeq(buf.String(), "\n") {
				assert.Less(t, len(line), 2048, "log line of %d bytes", len(line))
			}
		})
	}
}
