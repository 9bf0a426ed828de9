package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"time"

	"github.com/operator-catalog/olmcat/registry/healthprobe"
)

// runHealthProbe is olmcat invoked as grpc_health_probe: grpc-health-probe
// v0.4's command line (Go flag syntax, -addr=:50051), messages on stderr
// and exit codes, so that OLM's exec probes run unchanged.
func runHealthProbe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	l := log.New(stderr, "", 0)
	var f probeFlags
	if err := newProbeFlagSet(&f, stderr).Parse(args); err != nil {
		return int(healthprobe.CodeInvalidArguments)
	}
	if f.version {
		fmt.Fprintln(stdout, "olmcat "+versionString())
		return 0
	}
	if err := f.check(); err != nil {
		l.Printf("error: %v", err)
		return int(healthprobe.CodeInvalidArguments)
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
		return int(healthprobe.CodeInvalidArguments)
	}
	f.opts.Headers, f.opts.ALTS, f.opts.SPIFFE = f.headers.MD, f.alts, f.spiffe
	if f.tls {
		f.opts.TLS = &f.tlsOpts
	}
	out := healthprobe.Run(ctx, f.opts, f.steps(l))
	if (out.Code == healthprobe.CodeConnectionFailure || out.Code == healthprobe.CodeRPCFailure) && ctx.Err() != nil {
		// A step cut short by ctx is reported once the cancellation is.
		<-said
	}
	switch {
	case out.Code == healthprobe.CodeSPIFFEFailed:
		out.Message += ": use -tls with files"
	case out.Code == healthprobe.CodeServing && f.verbose:
		l.Printf("time elapsed: connect=%v rpc=%v", out.Result.Connect, out.Result.RPC)
	}
	l.Print(out.Message)
	return int(out.Code)
}

// steps are the tool's -v lines of the dial (none without -v).
func (f *probeFlags) steps(l *log.Logger) healthprobe.Steps {
	if !f.verbose {
		return healthprobe.Steps{}
	}
	return healthprobe.Steps{
		Dialing:   func() { l.Print("establishing connection") },
		Connected: func(took time.Duration) { l.Printf("connection established (took %v)", took) },
	}
}
