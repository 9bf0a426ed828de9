package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// servedCmd is an `olmcat serve` running in process on a free port.
type servedCmd struct {
	conn   *grpc.ClientConn
	stderr *lockedBuffer
	cancel context.CancelFunc
	done   chan error
}

// startServe runs `olmcat serve -p 0 args...` in process, waits for its
// "serving on" log line and connects to it.
func startServe(t *testing.T, args ...string) *servedCmd {
	t.Helper()
	return startServing(t, append([]string{"serve", "-p", "0"}, args...)...)
}

// startServing runs the olmcat command line args (a server on a free
// port) in process, waits for its "serving on" log line and connects to
// it.
func startServing(t *testing.T, args ...string) *servedCmd {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &servedCmd{stderr: &lockedBuffer{}, cancel: cancel, done: make(chan error, 1)}
	cmd := newRootCmd()
	cmd.SetErr(s.stderr)
	cmd.SetArgs(args)
	go func() { s.done <- cmd.ExecuteContext(ctx) }()
	var addr string
	require.Eventually(t, func() bool {
		m := servingOn.FindStringSubmatch(s.stderr.String())
		if m != nil {
			addr = strings.Replace(m[1], "[::]", "127.0.0.1", 1)
		}
		return m != nil
	}, 30*time.Second, 10*time.Millisecond, "no 'serving on' log line: %s", s.stderr.String())
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	s.conn = conn
	t.Cleanup(func() { _ = s.stop(t) })
	return s
}

// stop cancels the command's context (what SIGTERM does through main's
// signal.NotifyContext) and returns what it returned.
func (s *servedCmd) stop(t *testing.T) error {
	t.Helper()
	if s.cancel == nil {
		return nil
	}
	s.conn.Close()
	s.cancel()
	s.cancel = nil
	select {
	case err := <-s.done:
		return err
	case <-time.After(30 * time.Second):
		require.Fail(t, "serve did not stop after its context was cancelled")
		return nil
	}
}
