package main

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	healthgrpc "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
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
		{"declarative config", []string{"../../fixtures/legacy/small-fbb/opm-migrate", "--cache-dir", t.TempDir(), "--cache-enforce-integrity=false"}, false, "info"},
		{"sqlite", []string{"../../fixtures/legacy/small-fbb/index.db"}, true, "info"},
		{"sqlite without warning", []string{"../../fixtures/legacy/small-fbb/index.db", "--no-deprecation-warning"}, false, "debug"},
		{"sqlite image", append([]string{dbImage}, imgFlags...), true, "info"},
		{"declarative config image", append([]string{fbcImage}, imgFlags...), false, "info"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			s := startServe(t, append([]string{"--log-level", tc.logLevel}, tc.args...)...)
			h, err := healthgrpc.NewHealthClient(s.conn).Check(ctx, &healthgrpc.HealthCheckRequest{})
			require.NoError(t, err)
			require.Equal(t, healthgrpc.HealthCheckResponse_SERVING, h.GetStatus())
			p, err := api.NewRegistryClient(s.conn).GetPackage(ctx, &api.GetPackageRequest{Name: "foo"})
			require.NoError(t, err)
			require.Equal(t, "beta", p.GetDefaultChannelName())
			require.NoError(t, s.stop(t))
			out := s.stderr.String()
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
