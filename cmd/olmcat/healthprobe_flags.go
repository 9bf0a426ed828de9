package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"strings"
	"time"
	"unicode"

	"google.golang.org/grpc/metadata"

	"github.com/operator-catalog/olmcat/registry/healthprobe"
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
