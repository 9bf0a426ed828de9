package main

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthgrpc "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/operator-catalog/olmcat/image/imagetest"
	"github.com/operator-catalog/olmcat/registry/api"
)

// lockedBuffer is a goroutine-safe stderr for a command running in the
// background.
type lockedBuffer struct {
	mu sync.Mutex
	sb strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sb.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sb.String()
}

var servingOn = regexp.MustCompile(`serving on ([^\s"]+)`)

// TestServeCommand runs `olmcat serve` on a free port for each catalog
// kind, calls it over gRPC, then cancels the command's context (what
// SIGTERM does through main's signal.NotifyContext) and expects a clean exit.
func TestServeCommand(t *testing.T) {
	reg := imagetest.New(t)
	_, imgFlags := imageTestEnv(t)
	dbImage := pushDBImage(t, reg, "small-fbb/index:v1", "../../fixtures/legacy/small-fbb/index.db")
	fbcImage := pushConfigsImage(t, reg, "small-fbb/fbc:v1", "../../fixtures/legacy/small-fbb/opm-migrate")
	for _, tc := range []struct {
		name     string
		args     []string
		warning  bool
		logLevel string
	}{
		{"declarative config", []string{"../../fixtures/legacy/small-fbb/opm-migrate", "--cache-dir", t.TempDir()}, false, "info"},
		{"sqlite", []string{"../../fixtures/legacy/small-fbb/index.db"}, true, "info"},
		{"sqlite without warning", []string{"../../fixtures/legacy/small-fbb/index.db", "--no-deprecation-warning"}, false, "debug"},
		{"sqlite image", append([]string{dbImage}, imgFlags...), true, "info"},
		{"declarative config image", append([]string{fbcImage}, imgFlags...), false, "info"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var stderr lockedBuffer
			cmd := newRootCmd()
			cmd.SetErr(&stderr)
			cmd.SetArgs(append([]string{"serve", "-p", "0", "--log-level", tc.logLevel}, tc.args...))
			done := make(chan error, 1)
			go func() { done <- cmd.ExecuteContext(ctx) }()

			var addr string
			require.Eventually(t, func() bool {
				m := servingOn.FindStringSubmatch(stderr.String())
				if m != nil {
					addr = m[1]
				}
				return m != nil
			}, 30*time.Second, 10*time.Millisecond, "no 'serving on' log line: %s", stderr.String())
			addr = strings.Replace(addr, "[::]", "127.0.0.1", 1)

			conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
			require.NoError(t, err)
			defer conn.Close()
			h, err := healthgrpc.NewHealthClient(conn).Check(ctx, &healthgrpc.HealthCheckRequest{})
			require.NoError(t, err)
			require.Equal(t, healthgrpc.HealthCheckResponse_SERVING, h.GetStatus())
			p, err := api.NewRegistryClient(conn).GetPackage(ctx, &api.GetPackageRequest{Name: "foo"})
			require.NoError(t, err)
			require.Equal(t, "beta", p.GetDefaultChannelName())

			cancel()
			select {
			case err := <-done:
				require.NoError(t, err)
			case <-time.After(30 * time.Second):
				t.Fatal("serve did not stop after its context was cancelled")
			}
			out := stderr.String()
			require.Equal(t, tc.warning, strings.Contains(out, "legacy sqlite index"), out)
			require.Contains(t, out, "method=/api.Registry/GetPackage")
		})
	}
}

func TestServeCommandUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"serve"},
		{"serve", "a", "b"},
		{"serve", "--log-level", "loud", "../../fixtures/legacy/small-fbb/opm-migrate"},
		{"serve", "-p", "70000", "../../fixtures/legacy/small-fbb/opm-migrate"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			cmd := newRootCmd()
			cmd.SetErr(&lockedBuffer{})
			cmd.SetArgs(args)
			err := cmd.ExecuteContext(context.Background())
			var ee *exitError
			require.True(t, errors.As(err, &ee), "%v", err)
			require.Equal(t, exitUsage, ee.code)
		})
	}
}

func TestServeCommandBadCatalog(t *testing.T) {
	cmd := newRootCmd()
	cmd.SetErr(&lockedBuffer{})
	cmd.SetArgs([]string{"serve", "-p", "0", t.TempDir() + "/missing"})
	require.ErrorContains(t, cmd.ExecuteContext(context.Background()), "missing")
}
