package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/operator-catalog/olmcat/internal/testutil/kubetest"
	"github.com/operator-catalog/olmcat/registry/healthprobe"
)

// healthProbeVersion is the grpc-health-probe release the probe is
// compared with (make health-probe-bin builds it from the Go module proxy).
const healthProbeVersion = "v0.4.62"

// realHealthProbe is grpc-health-probe built by make health-probe-bin:
// $OLMCAT_TEST_GRPC_HEALTH_PROBE, else its place in the user cache dir.
// Without it the test is skipped, unless TEST_ASSETS_REQUIRED is set
// (make test), when it fails.
func realHealthProbe(t *testing.T) string {
	t.Helper()
	p := os.Getenv("OLMCAT_TEST_GRPC_HEALTH_PROBE")
	if p == "" {
		cache, err := os.UserCacheDir()
		require.NoError(t, err)
		p = filepath.Join(cache, "olmcat-test", "grpc-health-probe-"+healthProbeVersion, "grpc-health-probe")
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv(kubetest.EnvRequired) == "" {
			t.Skipf("grpc-health-probe %s not built (make health-probe-bin): %v", healthProbeVersion, err)
		}
		require.NoError(t, err, "run make health-probe-bin")
	}
	return p
}

// healthServer serves grpc.health.v1 on loopback: the whole server
// SERVING, service "down" NOT_SERVING, any other service unknown.
func healthServer(t *testing.T, srv healthpb.HealthServer) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := grpc.NewServer()
	if srv != nil {
		healthpb.RegisterHealthServer(s, srv)
	}
	go func() { _ = s.Serve(lis) }()
	t.Cleanup(s.Stop)
	return lis.Addr().String()
}

// stalledHealth answers no Check before the caller gives up.
type stalledHealth struct {
	healthpb.UnimplementedHealthServer
}

func (stalledHealth) Check(ctx context.Context, _ *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// probeTimings are the durations -v prints, which differ run to run.
var probeTimings = regexp.MustCompile(`\d+(\.\d+)?(ns|µs|ms|s)\b`)

// TestHealthProbeMatchesGRPCHealthProbe runs olmcat as grpc_health_probe
// and the real grpc-health-probe with the same arguments against the
// same loopback servers: the same exit code, stdout and stderr, for OLM's
// probe command line and for every outcome the tool distinguishes.
func TestHealthProbeMatchesGRPCHealthProbe(t *testing.T) {
	real := realHealthProbe(t)
	h := health.NewServer()
	h.SetServingStatus("down", healthpb.HealthCheckResponse_NOT_SERVING)
	up := healthServer(t, h)
	stalled := healthServer(t, stalledHealth{})
	noHealth := healthServer(t, nil)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	nothing := closed.Addr().String()
	require.NoError(t, closed.Close())
	catalog := startServe(t, "../../fixtures/legacy/small-fbb/opm-migrate")

	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"OLM's probe against olmcat serve", []string{"-addr=" + catalog.conn.Target(), "-rpc-timeout=5s"}, 0},
		{"serving", []string{"-addr", up}, 0},
		{"serving, verbose, headers, gzip", []string{"-addr=" + up, "-v", "-rpc-header", "a: b", "-rpc-header=c:d", "-gzip", "-user-agent=kubelet"}, 0},
		{"not serving", []string{"-addr=" + up, "-service=down"}, int(healthprobe.CodeUnhealthy)},
		{"unknown service", []string{"-addr=" + up, "-service", "nope"}, int(healthprobe.CodeRPCFailure)},
		{"no health service", []string{"-addr=" + noHealth}, int(healthprobe.CodeRPCFailure)},
		{"rpc timeout", []string{"-addr=" + stalled, "-rpc-timeout=300ms"}, int(healthprobe.CodeRPCFailure)},
		{"rpc timeout, verbose", []string{"-addr=" + stalled, "-rpc-timeout=300ms", "-v"}, int(healthprobe.CodeRPCFailure)},
		{"nothing listening", []string{"-addr=" + nothing, "-connect-timeout=300ms"}, int(healthprobe.CodeConnectionFailure)},
		{"tls to a plaintext server", []string{"-addr=" + up, "-tls", "-tls-no-verify", "-connect-timeout=300ms"}, int(healthprobe.CodeConnectionFailure)},
		{"unknown flag", []string{"-addr=" + up, "--bogus"}, int(healthprobe.CodeInvalidArguments)},
		{"help", []string{"-h"}, int(healthprobe.CodeInvalidArguments)},
		{"no -addr", nil, int(healthprobe.CodeInvalidArguments)},
		{"bad duration", []string{"-addr=" + up, "-rpc-timeout=5"}, int(healthprobe.CodeInvalidArguments)},
		{"zero connect timeout", []string{"-addr=" + up, "-connect-timeout=0s"}, int(healthprobe.CodeInvalidArguments)},
		{"bad header", []string{"-addr=" + up, "-rpc-header=nocolon"}, int(healthprobe.CodeInvalidArguments)},
		{"tls flag without -tls", []string{"-addr=" + up, "-tls-ca-cert=ca.pem"}, int(healthprobe.CodeInvalidArguments)},
		{"client cert without key", []string{"-addr=" + up, "-tls", "-tls-client-cert=c.pem"}, int(healthprobe.CodeInvalidArguments)},
		{"tls and alts", []string{"-addr=" + up, "-tls", "-alts"}, int(healthprobe.CodeInvalidArguments)},
		{"missing CA file", []string{"-addr=" + up, "-tls", "-tls-ca-cert=/nonexistent/ca.pem"}, int(healthprobe.CodeInvalidArguments)},
		{"tls and spiffe", []string{"-addr=" + up, "-tls", "-spiffe"}, int(healthprobe.CodeInvalidArguments)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var realOut, realErr bytes.Buffer
			cmd := exec.Command(real, tc.args...)
			cmd.Stdout, cmd.Stderr = &realOut, &realErr
			realCode := 0
			if err := cmd.Run(); err != nil {
				var exit *exec.ExitError
				require.ErrorAs(t, err, &exit)
				realCode = exit.ExitCode()
			}
			var out, stderr bytes.Buffer
			code := dispatch(context.Background(), append([]string{"/bin/grpc_health_probe"}, tc.args...), &out, &stderr)
			assert.Equal(t, tc.code, realCode, "grpc-health-probe: %s", realErr.String())
			assert.Equal(t, realCode, code, stderr.String())
			assert.Equal(t, realOut.String(), out.String())
			assert.Equal(t, probeTimings.ReplaceAllString(realErr.String(), "T"), probeTimings.ReplaceAllString(stderr.String(), "T"))
		})
	}
}

// TestHealthProbeSpiffe: -spiffe fails as the tool does without a SPIFFE
// Workload API (exit 20), saying why.
func TestHealthProbeSpiffe(t *testing.T) {
	var out, stderr bytes.Buffer
	code := dispatch(context.Background(), []string{"grpc_health_probe", "-addr=:50051", "-spiffe"}, &out, &stderr)
	assert.Equal(t, int(healthprobe.CodeSPIFFEFailed), code)
	assert.Empty(t, out.String())
	assert.Equal(t, "failed to initialize tls credentials with spiffe. error=olmcat's grpc_health_probe has no SPIFFE Workload API client: use -tls with files\n", stderr.String())
}

// TestHealthProbeInterrupted: a probe stopped by SIGTERM (what the kubelet
// sends one that outlives its timeout) says so and fails as the real
// grpc-health-probe does, whichever step it cut short.
func TestHealthProbeInterrupted(t *testing.T) {
	real := realHealthProbe(t)
	stalled := healthServer(t, stalledHealth{})
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	nothing := closed.Addr().String()
	require.NoError(t, closed.Close())
	const after = 500 * time.Millisecond
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"during the rpc", []string{"-addr=" + stalled, "-rpc-timeout=30s"}, int(healthprobe.CodeRPCFailure)},
		{"during the dial", []string{"-addr=" + nothing, "-connect-timeout=30s"}, int(healthprobe.CodeConnectionFailure)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var realErr bytes.Buffer
			cmd := exec.Command(real, tc.args...)
			cmd.Stderr = &realErr
			require.NoError(t, cmd.Start())
			time.Sleep(after)
			require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
			var exit *exec.ExitError
			require.ErrorAs(t, cmd.Wait(), &exit)

			ctx, cancel := context.WithCancelCause(context.Background())
			timer := time.AfterFunc(after, func() { cancel(interrupted{syscall.SIGTERM}) })
			defer timer.Stop()
			var out, stderr bytes.Buffer
			code := dispatch(ctx, append([]string{"grpc_health_probe"}, tc.args...), &out, &stderr)
			assert.Equal(t, tc.code, exit.ExitCode(), "grpc-health-probe: %s", realErr.String())
			assert.Equal(t, exit.ExitCode(), code, stderr.String())
			assert.Equal(t, realErr.String(), stderr.String())
			assert.Empty(t, out.String())
		})
	}
}
