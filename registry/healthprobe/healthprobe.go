// Package healthprobe is the client side of grpc.health.v1 that the
// kubelet runs as an exec probe in catalog pods: the check
// grpc-health-probe v0.4 makes (dial with a connect timeout, one
// Health.Check call with an RPC timeout), with its options and its four
// outcomes (invalid options, connection failure, RPC failure, unhealthy).
//
// It owns the check, the classification of its failures into the tool's
// exit codes and the tool's line for each (Run); the command line
// (grpc-health-probe's flag set, its validation and the messages that
// name its flags) is the CLI's.
package healthprobe

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/alts"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding/gzip"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// Options are one check's settings.
type Options struct {
	// Addr is the target, host:port (grpc's passthrough target syntax).
	Addr string
	// Service is the service name asked about ("" is the server as a
	// whole).
	Service string
	// UserAgent is the user-agent header of the call.
	UserAgent string
	// ConnectTimeout bounds the dial, RPCTimeout the Check call; both
	// must be positive.
	ConnectTimeout, RPCTimeout time.Duration
	// Headers are sent with the call.
	Headers metadata.MD
	// TLS, when set, dials with TLS; else plaintext (or ALTS).
	TLS *TLSOptions
	// ALTS dials with ALTS credentials (only on Google Cloud VMs).
	ALTS bool
	// Gzip compresses the request (responses are decompressed whatever
	// the server chose).
	Gzip bool
	// SPIFFE asks for credentials from the SPIFFE Workload API, which
	// olmcat has no client for: Run fails with ErrNoSPIFFE.
	SPIFFE bool
}

// TLSOptions are the TLS settings of a check.
type TLSOptions struct {
	// NoVerify accepts any server certificate.
	NoVerify bool
	// CACert is a PEM file of the roots to verify the server with
	// (default the system roots).
	CACert string
	// ClientCert and ClientKey are the client's key pair (both or
	// neither).
	ClientCert, ClientKey string
	// ServerName overrides the name verified in the server certificate.
	ServerName string
}

// ConnectError is a dial that did not succeed.
type ConnectError struct {
	// Timeout is set when the connect timeout ran out (the dial retries
	// until then).
	Timeout bool
	// Err is the dial's error.
	Err error
}

func (e *ConnectError) Error() string { return "connect: " + e.Err.Error() }
func (e *ConnectError) Unwrap() error { return e.Err }

// RPCError is a Check call that failed.
type RPCError struct {
	// Code is the call's gRPC status code (Unimplemented: the server has
	// no health service; DeadlineExceeded: the RPC timeout ran out).
	Code codes.Code
	// Err is the call's error.
	Err error
}

func (e *RPCError) Error() string { return "health rpc: " + e.Err.Error() }
func (e *RPCError) Unwrap() error { return e.Err }

// Credentials returns the transport credentials o asks for; a key pair
// or CA file that cannot be loaded is an error naming the file.
func (o Options) Credentials() (credentials.TransportCredentials, error) {
	switch {
	case o.TLS != nil:
		return o.TLS.credentials()
	case o.ALTS:
		return alts.NewClientCreds(alts.DefaultClientOptions()), nil
	}
	return insecure.NewCredentials(), nil
}

func (t *TLSOptions) credentials() (credentials.TransportCredentials, error) {
	var cfg tls.Config
	if t.ClientCert != "" && t.ClientKey != "" {
		pair, err := tls.LoadX509KeyPair(t.ClientCert, t.ClientKey)
		if err != nil {
			return nil, fmt.Errorf("failed to load tls client cert/key pair. error=%v", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	if t.NoVerify {
		cfg.InsecureSkipVerify = true
	} else if t.CACert != "" {
		pem, err := os.ReadFile(t.CACert)
		if err != nil {
			return nil, fmt.Errorf("failed to load root CA certificates from file (%s) error=%v", t.CACert, err)
		}
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("no root CA certs parsed from file %s", t.CACert)
		}
		cfg.RootCAs = roots
	}
	cfg.ServerName = t.ServerName
	return credentials.NewTLS(&cfg), nil
}

// Dial connects to o.Addr with creds (see Credentials), retrying until
// o.ConnectTimeout as the tool does (a server still starting is not a
// failure until then). A failed dial is a *ConnectError.
func Dial(ctx context.Context, o Options, creds credentials.TransportCredentials) (*grpc.ClientConn, error) {
	opts := []grpc.DialOption{
		grpc.WithUserAgent(o.UserAgent),
		grpc.WithTransportCredentials(creds),
		grpc.WithBlock(), //lint:ignore SA1019 grpc-health-probe's dial (block until ready or the timeout) is the contract kubelet probes rely on
	}
	if o.Gzip {
		opts = append(opts, grpc.WithDefaultCallOptions(grpc.UseCompressor(gzip.Name)))
	}
	dialCtx, cancel := context.WithTimeout(ctx, o.ConnectTimeout)
	defer cancel()
	// DialContext, not NewClient: its passthrough resolver reads o.Addr
	// as grpc-health-probe does (":50051" is the local port).
	conn, err := grpc.DialContext(dialCtx, o.Addr, opts...) //lint:ignore SA1019 the same target syntax and blocking dial as the tool it replaces
	if err != nil {
		return nil, &ConnectError{Timeout: errors.Is(err, context.DeadlineExceeded), Err: err}
	}
	return conn, nil
}

// Check asks conn for the health of o.Service within o.RPCTimeout, with
// o.Headers. A failed call is an *RPCError; an answer, SERVING or not, is
// the status.
func Check(ctx context.Context, conn *grpc.ClientConn, o Options) (healthpb.HealthCheckResponse_ServingStatus, error) {
	rpcCtx, cancel := context.WithTimeout(ctx, o.RPCTimeout)
	defer cancel()
	rpcCtx = metadata.NewOutgoingContext(rpcCtx, o.Headers)
	resp, err := healthpb.NewHealthClient(conn).Check(rpcCtx, &healthpb.HealthCheckRequest{Service: o.Service})
	if err != nil {
		return 0, &RPCError{Code: status.Code(err), Err: err}
	}
	return resp.GetStatus(), nil
}

// Result is what a Probe found: the server's status and how long each
// step took (the tool's verbose output tells both).
type Result struct {
	Status       healthpb.HealthCheckResponse_ServingStatus
	Connect, RPC time.Duration
}

// Probe is the tool's whole check: Dial, then Check, the connection
// closed after. connected, if not nil, is called once the connection is
// up, with the time it took, before the call is made (the tool's
// verbose log tells it then). Its errors are Dial's and Check's.
func Probe(ctx context.Context, o Options, creds credentials.TransportCredentials, connected func(took time.Duration)) (Result, error) {
	var res Result
	start := time.Now()
	conn, err := Dial(ctx, o, creds)
	if err != nil {
		return res, err
	}
	defer conn.Close()
	res.Connect = time.Since(start)
	if connected != nil {
		connected(res.Connect)
	}
	start = time.Now()
	if res.Status, err = Check(ctx, conn, o); err != nil {
		return res, err
	}
	res.RPC = time.Since(start)
	return res, nil
}
