package healthprobe_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/operator-catalog/olmcat/registry/healthprobe"
)

// TestRun: each of the tool's outcomes, its exit code and its line.
func TestRun(t *testing.T) {
	for _, tc := range []struct {
		name    string
		addr    func(t *testing.T) string
		o       healthprobe.Options
		code    healthprobe.Code
		message string
		dialed  bool
	}{
		{name: "serving", addr: func(t *testing.T) string { return healthServer(t, healthpb.HealthCheckResponse_SERVING) },
			code: healthprobe.CodeServing, message: "status: SERVING", dialed: true},
		{name: "not serving", addr: func(t *testing.T) string { return healthServer(t, healthpb.HealthCheckResponse_NOT_SERVING) },
			code: healthprobe.CodeUnhealthy, message: `service unhealthy (responded with "NOT_SERVING")`, dialed: true},
		{name: "unknown service", addr: func(t *testing.T) string { return healthServer(t, healthpb.HealthCheckResponse_SERVING) },
			o: healthprobe.Options{Service: "nope"}, code: healthprobe.CodeRPCFailure, message: "error: health rpc failed: ", dialed: true},
		{name: "no health service", addr: func(t *testing.T) string { return listen(t, grpc.NewServer()) },
			code: healthprobe.CodeRPCFailure, message: "error: this server does not implement the grpc health protocol (grpc.health.v1.Health): ", dialed: true},
		{name: "nothing listening", addr: closedAddr,
			code: healthprobe.CodeConnectionFailure, message: "timeout: failed to connect service ", dialed: true},
		{name: "missing CA file", addr: closedAddr, o: healthprobe.Options{TLS: &healthprobe.TLSOptions{CACert: "/nonexistent/ca.pem"}},
			code: healthprobe.CodeInvalidArguments, message: "failed to initialize tls credentials. error=failed to load root CA certificates from file (/nonexistent/ca.pem)"},
		{name: "spiffe", addr: closedAddr, o: healthprobe.Options{SPIFFE: true},
			code: healthprobe.CodeSPIFFEFailed, message: "failed to initialize tls credentials with spiffe. error=olmcat's grpc_health_probe has no SPIFFE Workload API client"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			o.Addr, o.UserAgent, o.ConnectTimeout, o.RPCTimeout = tc.addr(t), "test", 300*time.Millisecond, 5*time.Second
			dialed := false
			out := healthprobe.Run(context.Background(), o, healthprobe.Steps{Dialing: func() { dialed = true }})
			assert.Equal(t, tc.code, out.Code)
			assert.Contains(t, out.Message, tc.message)
			assert.Equal(t, tc.dialed, dialed)
			assert.Equal(t, tc.code == healthprobe.CodeServing || tc.code == healthprobe.CodeUnhealthy, out.Err == nil, "%v", out.Err)
		})
	}
}
