package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/operator-catalog/olmcat/registry/healthprobe"
)

// grpc-health-probe v0.4's exit codes, which kubelet exec probes and
// scripts read.
const (
	probeInvalidArguments  = 1
	probeConnectionFailure = 2
	probeRPCFailure        = 3
	probeUnhealthy         = 4
	probeSpiffeFailed      = 20
)

// runHealthProbe is olmcat invoked as grpc_health_probe: grpc-health-probe
// v0.4's command line (Go flag syntax, -addr=:50051), messages on stderr
// and exit codes, so that OLM's exec probes run unchanged.
func runHealthProbe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	l := log.New(stderr, "", 0)
	var f probeFlags
	if err := newProbeFlagSet(&f, stderr).Parse(args); err != nil {
		return probeInvalidArguments
	}
	if f.version {
		fmt.Fprintln(stdout, "olmcat "+versionString())
		return 0
	}
	if err := f.check(); err != nil {
		l.Printf("error: %v", err)
		return probeInvalidArguments
	}
	if f.verbose {
		f.logOptions(l)
	}
	// The kubelet stops a probe that outlives its timeout with a signal:
	// said as the tool says it, before the step it cut short fails.
	said := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(said)
		var sig interrupted
		if errors.As(context.Cause(ctx), &sig) {
			l.Printf("cancellation received (signal: %v)", sig.sig)
		}
	})
	defer stop()
	if f.tls && f.spiffe {
		l.Printf("-tls and -spiffe are mutually incompatible")
		return probeInvalidArguments
	}
	if f.spiffe {
		l.Printf("failed to initialize tls credentials with spiffe. error=olmcat's grpc_health_probe has no SPIFFE Workload API client: use -tls with files")
		return probeSpiffeFailed
	}
	f.opts.Headers, f.opts.ALTS = f.headers.MD, f.alts
	if f.tls {
		f.opts.TLS = &f.tlsOpts
	}
	creds, err := f.opts.Credentials()
	if err != nil {
		l.Printf("failed to initialize tls credentials. error=%v", err)
		return probeInvalidArguments
	}
	if f.verbose {
		l.Print("establishing connection")
	}
	return f.probe(ctx, l, creds, said)
}

// probe dials and checks as the tool does, printing each step's outcome
// in its words, and returns its exit code. A step cut short by ctx is
// reported once the cancellation is (said closes then).
func (f *probeFlags) probe(ctx context.Context, l *log.Logger, creds credentials.TransportCredentials, said <-chan struct{}) int {
	res, err := healthprobe.Probe(ctx, f.opts, creds, func(took time.Duration) {
		if f.verbose {
			l.Printf("connection established (took %v)", took)
		}
	})
	if err != nil && ctx.Err() != nil {
		<-said
	}
	var (
		ce *healthprobe.ConnectError
		re *healthprobe.RPCError
	)
	switch {
	case errors.As(err, &ce) && ce.Timeout:
		l.Printf("timeout: failed to connect service %q within %v", f.opts.Addr, f.opts.ConnectTimeout)
		return probeConnectionFailure
	case errors.As(err, &ce):
		l.Printf("error: failed to connect service at %q: %+v", f.opts.Addr, ce.Err)
		return probeConnectionFailure
	case errors.As(err, &re) && re.Code == codes.Unimplemented:
		l.Printf("error: this server does not implement the grpc health protocol (grpc.health.v1.Health): %s", status.Convert(re.Err).Message())
		return probeRPCFailure
	case errors.As(err, &re) && re.Code == codes.DeadlineExceeded:
		l.Printf("timeout: health rpc did not complete within %v", f.opts.RPCTimeout)
		return probeRPCFailure
	case errors.As(err, &re):
		l.Printf("error: health rpc failed: %+v", re.Err)
		return probeRPCFailure
	}
	if res.Status != healthpb.HealthCheckResponse_SERVING {
		l.Printf("service unhealthy (responded with %q)", res.Status.String())
		return probeUnhealthy
	}
	if f.verbose {
		l.Printf("time elapsed: connect=%v rpc=%v", res.Connect, res.RPC)
	}
	l.Printf("status: %v", res.Status.String())
	return 0
}
