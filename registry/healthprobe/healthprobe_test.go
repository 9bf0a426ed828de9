package healthprobe_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/operator-catalog/olmcat/registry/healthprobe"
)

// listen serves srv on a loopback TCP port until the test ends and
// returns its address.
func listen(t *testing.T, srv *grpc.Server) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}

// healthServer serves grpc.health.v1 answering st for the server as a
// whole.
func healthServer(t *testing.T, st healthpb.HealthCheckResponse_ServingStatus) string {
	t.Helper()
	srv := grpc.NewServer()
	h := health.NewServer()
	h.SetServingStatus("", st)
	healthpb.RegisterHealthServer(srv, h)
	return listen(t, srv)
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := lis.Addr().String()
	require.NoError(t, lis.Close())
	return addr
}

func TestProbe(t *testing.T) {
	for _, tc := range []struct {
		name      string
		addr      func(t *testing.T) string
		service   string
		status    healthpb.HealthCheckResponse_ServingStatus
		connected bool
		connect   bool // a *ConnectError (timed out)
		code      codes.Code
	}{
		{name: "serving", addr: func(t *testing.T) string { return healthServer(t, healthpb.HealthCheckResponse_SERVING) },
			status: healthpb.HealthCheckResponse_SERVING, connected: true},
		{name: "not serving", addr: func(t *testing.T) string { return healthServer(t, healthpb.HealthCheckResponse_NOT_SERVING) },
			status: healthpb.HealthCheckResponse_NOT_SERVING, connected: true},
		{name: "unknown service", addr: func(t *testing.T) string { return healthServer(t, healthpb.HealthCheckResponse_SERVING) },
			service: "nope", connected: true, code: codes.NotFound},
		{name: "no health service", addr: func(t *testing.T) string { return listen(t, grpc.NewServer()) },
			connected: true, code: codes.Unimplemented},
		{name: "nothing listening", addr: closedAddr, connect: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := healthprobe.Options{Addr: tc.addr(t), Service: tc.service, UserAgent: "test",
				ConnectTimeout: 300 * time.Millisecond, RPCTimeout: 5 * time.Second}
			creds, err := o.Credentials()
			require.NoError(t, err)
			connected := false
			res, err := healthprobe.Probe(context.Background(), o, creds, func(took time.Duration) {
				connected = true
				assert.Positive(t, took)
			})
			assert.Equal(t, tc.connected, connected)
			var (
				ce *healthprobe.ConnectError
				re *healthprobe.RPCError
			)
			switch {
			case tc.connect:
				require.ErrorAs(t, err, &ce)
				assert.True(t, ce.Timeout)
			case tc.code != codes.OK:
				require.ErrorAs(t, err, &re)
				assert.Equal(t, tc.code, re.Code)
			default:
				require.NoError(t, err)
				assert.Equal(t, tc.status, res.Status)
				assert.Positive(t, res.RPC)
			}
		})
	}
}
