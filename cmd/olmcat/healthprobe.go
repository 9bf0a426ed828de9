package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"strings"
	"time"
	"unicode"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
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

// probeHeaders is -rpc-header (repeatable "name: value"), printed as the
// tool prints its own (the flag package compares String with a zero
// value's to leave the default out of the usage).
type probeHeaders struct{ metadata.MD }

func (h *probeHeaders) String() string { return fmt.Sprintf("%v", h.MD) }

func (h *probeHeaders) Set(value string) error {
	name, val, ok := strings.Cut(value, ":")
	if !ok {
		return fmt.Errorf("invalid RPC header, expected 'key: value', got %q", value)
	}
	h.Append(name, strings.TrimLeftFunc(val, unicode.IsSpace))
	return nil
}

// probeFlags are grpc-health-probe v0.4's flags.
type probeFlags struct {
	opts                       healthprobe.Options
	headers                    probeHeaders
	tls, alts, spiffe, verbose bool
	version                    bool
	tlsOpts                    healthprobe.TLSOptions
}

// newProbeFlagSet declares the flags with the tool's names, defaults and
// usage texts (its usage output is part of what scripts see).
func newProbeFlagSet(f *probeFlags, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.headers.MD = metadata.MD{}
	fs.StringVar(&f.opts.Addr, "addr", "", "(required) tcp host:port to connect")
	fs.StringVar(&f.opts.Service, "service", "", "service name to check (default: \"\")")
	fs.StringVar(&f.opts.UserAgent, "user-agent", "grpc_health_probe", "user-agent header value of health check requests")
	fs.DurationVar(&f.opts.ConnectTimeout, "connect-timeout", time.Second, "timeout for establishing connection")
	fs.Var(&f.headers, "rpc-header", "additional RPC headers in 'name: value' format. May specify more than one via multiple flags.")
	fs.DurationVar(&f.opts.RPCTimeout, "rpc-timeout", time.Second, "timeout for health check rpc")
	fs.BoolVar(&f.tls, "tls", false, "use TLS (default: false, INSECURE plaintext transport)")
	fs.BoolVar(&f.tlsOpts.NoVerify, "tls-no-verify", false, "(with -tls) don't verify the certificate (INSECURE) presented by the server (default: false)")
	fs.StringVar(&f.tlsOpts.CACert, "tls-ca-cert", "", "(with -tls, optional) file containing trusted certificates for verifying server")
	fs.StringVar(&f.tlsOpts.ClientCert, "tls-client-cert", "", "(with -tls, optional) client certificate for authenticating to the server (requires -tls-client-key)")
	fs.StringVar(&f.tlsOpts.ClientKey, "tls-client-key", "", "(with -tls) client private key for authenticating to the server (requires -tls-client-cert)")
	fs.StringVar(&f.tlsOpts.ServerName, "tls-server-name", "", "(with -tls) override the hostname used to verify the server certificate")
	fs.BoolVar(&f.alts, "alts", false, "use ALTS (default: false, INSECURE plaintext transport)")
	fs.BoolVar(&f.verbose, "v", false, "verbose logs")
	fs.BoolVar(&f.version, "version", false, "show probe version and exit")
	fs.BoolVar(&f.opts.Gzip, "gzip", false, "use GZIPCompressor for requests and GZIPDecompressor for response (default: false)")
	fs.BoolVar(&f.spiffe, "spiffe", false, "use SPIFFE to obtain mTLS credentials")
	return fs
}

// check is the tool's argument validation, in its order and words.
func (f *probeFlags) check() error {
	t := f.tlsOpts
	for _, c := range []struct {
		bad bool
		msg string
	}{
		{f.opts.Addr == "", "-addr not specified"},
		{f.opts.ConnectTimeout <= 0, fmt.Sprintf("-connect-timeout must be greater than zero (specified: %v)", f.opts.ConnectTimeout)},
		{f.opts.RPCTimeout <= 0, fmt.Sprintf("-rpc-timeout must be greater than zero (specified: %v)", f.opts.RPCTimeout)},
		{f.alts && f.spiffe, "-alts and -spiffe are mutually incompatible"},
		{f.tls && f.alts, "cannot specify -tls with -alts"},
		{!f.tls && t.NoVerify, "specified -tls-no-verify without specifying -tls"},
		{!f.tls && t.CACert != "", "specified -tls-ca-cert without specifying -tls"},
		{!f.tls && t.ClientCert != "", "specified -tls-client-cert without specifying -tls"},
		{!f.tls && t.ServerName != "", "specified -tls-server-name without specifying -tls"},
		{t.ClientCert != "" && t.ClientKey == "", "specified -tls-client-cert without specifying -tls-client-key"},
		{t.ClientCert == "" && t.ClientKey != "", "specified -tls-client-key without specifying -tls-client-cert"},
		{t.NoVerify && t.CACert != "", "cannot specify -tls-ca-cert with -tls-no-verify (CA cert would not be used)"},
		{t.NoVerify && t.ServerName != "", "cannot specify -tls-server-name with -tls-no-verify (server name would not be used)"},
	} {
		if c.bad {
			return errors.New(c.msg)
		}
	}
	return nil
}

// logOptions is the tool's -v listing of the parsed options.
func (f *probeFlags) logOptions(l *log.Logger) {
	l.Printf("parsed options:")
	l.Printf("> addr=%s conn_timeout=%v rpc_timeout=%v", f.opts.Addr, f.opts.ConnectTimeout, f.opts.RPCTimeout)
	if f.headers.Len() > 0 {
		l.Printf("> headers: %s", f.headers)
	}
	l.Printf("> tls=%v", f.tls)
	if f.tls {
		l.Printf("  > no-verify=%v ", f.tlsOpts.NoVerify)
		l.Printf("  > ca-cert=%s", f.tlsOpts.CACert)
		l.Printf("  > client-cert=%s", f.tlsOpts.ClientCert)
		l.Printf("  > client-key=%s", f.tlsOpts.ClientKey)
		l.Printf("  > server-name=%s", f.tlsOpts.ServerName)
	}
	l.Printf("> alts=%v", f.alts)
	l.Printf("> spiffe=%v", f.spiffe)
}

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
	settle := func() {
		if ctx.Err() != nil {
			<-said
		}
	}
	start := time.Now()
	conn, err := healthprobe.Dial(ctx, f.opts, creds)
	if err != nil {
		settle()
	}
	var ce *healthprobe.ConnectError
	switch {
	case errors.As(err, &ce) && ce.Timeout:
		l.Printf("timeout: failed to connect service %q within %v", f.opts.Addr, f.opts.ConnectTimeout)
		return probeConnectionFailure
	case errors.As(err, &ce):
		l.Printf("error: failed to connect service at %q: %+v", f.opts.Addr, ce.Err)
		return probeConnectionFailure
	}
	defer conn.Close()
	connTook := time.Since(start)
	if f.verbose {
		l.Printf("connection established (took %v)", connTook)
	}
	start = time.Now()
	st, err := healthprobe.Check(ctx, conn, f.opts)
	if err != nil {
		settle()
	}
	var re *healthprobe.RPCError
	switch {
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
	rpcTook := time.Since(start)
	if st != healthpb.HealthCheckResponse_SERVING {
		l.Printf("service unhealthy (responded with %q)", st.String())
		return probeUnhealthy
	}
	if f.verbose {
		l.Printf("time elapsed: connect=%v rpc=%v", connTook, rpcTook)
	}
	l.Printf("status: %v", st.String())
	return 0
}
