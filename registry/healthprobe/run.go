package healthprobe

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// Code is the exit code of one of grpc-health-probe v0.4's outcomes,
// which kubelet exec probes and scripts read.
type Code int

// The tool's exit codes.
const (
	CodeServing           Code = 0
	CodeInvalidArguments  Code = 1
	CodeConnectionFailure Code = 2
	CodeRPCFailure        Code = 3
	CodeUnhealthy         Code = 4
	CodeSPIFFEFailed      Code = 20
)

// ErrNoSPIFFE is the error of a Run asked for SPIFFE credentials: olmcat
// has no SPIFFE Workload API client.
var ErrNoSPIFFE = errors.New("olmcat's grpc_health_probe has no SPIFFE Workload API client")

// Outcome is what a Run found: the tool's exit code and the line the tool
// prints about it.
type Outcome struct {
	// Code is the exit code.
	Code Code
	// Message is the tool's line: the status served, or what failed.
	Message string
	// Result is the probe's (the durations are set once reached).
	Result Result
	// Err is what failed, nil for an answer (SERVING or not).
	Err error
}

// Steps are told a Run's progress as it is made (the tool's verbose
// log); a nil function is not called.
type Steps struct {
	// Dialing is called once the credentials are ready, before the dial.
	Dialing func()
	// Connected is called once the connection is up (Probe's connected).
	Connected func(took time.Duration)
}

// Run is the tool's whole run once its options are checked: the
// credentials (o.SPIFFE fails with CodeSPIFFEFailed), the Probe, and its
// outcome in the tool's words.
func Run(ctx context.Context, o Options, steps Steps) Outcome {
	if o.SPIFFE {
		return Outcome{Code: CodeSPIFFEFailed, Err: ErrNoSPIFFE,
			Message: "failed to initialize tls credentials with spiffe. error=" + ErrNoSPIFFE.Error()}
	}
	creds, err := o.Credentials()
	if err != nil {
		return Outcome{Code: CodeInvalidArguments, Err: err, Message: fmt.Sprintf("failed to initialize tls credentials. error=%v", err)}
	}
	if steps.Dialing != nil {
		steps.Dialing()
	}
	res, err := Probe(ctx, o, creds, steps.Connected)
	out := Outcome{Result: res, Err: err}
	var (
		ce *ConnectError
		re *RPCError
	)
	switch {
	case errors.As(err, &ce) && ce.Timeout:
		out.Code, out.Message = CodeConnectionFailure, fmt.Sprintf("timeout: failed to connect service %q within %v", o.Addr, o.ConnectTimeout)
	case errors.As(err, &ce):
		out.Code, out.Message = CodeConnectionFailure, fmt.Sprintf("error: failed to connect service at %q: %+v", o.Addr, ce.Err)
	case errors.As(err, &re) && re.Code == codes.Unimplemented:
		out.Code = CodeRPCFailure
		out.Message = "error: this server does not implement the grpc health protocol (grpc.health.v1.Health): " + status.Convert(re.Err).Message()
	case errors.As(err, &re) && re.Code == codes.DeadlineExceeded:
		out.Code, out.Message = CodeRPCFailure, fmt.Sprintf("timeout: health rpc did not complete within %v", o.RPCTimeout)
	case errors.As(err, &re):
		out.Code, out.Message = CodeRPCFailure, fmt.Sprintf("error: health rpc failed: %+v", re.Err)
	case res.Status != healthpb.HealthCheckResponse_SERVING:
		out.Code, out.Message = CodeUnhealthy, fmt.Sprintf("service unhealthy (responded with %q)", res.Status.String())
	default:
		out.Message = "status: " + res.Status.String()
	}
	return out
}
