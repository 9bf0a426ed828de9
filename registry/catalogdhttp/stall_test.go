package catalogdhttp_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/registry/catalogdhttp"
)

// stalledGet sends GET path to addr on a connection with the smallest
// receive buffer, reads the status line and nothing more: the server's
// write of a large body blocks once the socket buffers are full.
func stalledGet(t *testing.T, addr, path string) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var err error
		if cerr := c.Control(func(fd uintptr) { err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) }); cerr != nil {
			return cerr
		}
		return err
	}}
	conn, err := d.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	_, err = fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, addr)
	require.NoError(t, err)
	status, err := bufio.NewReaderSize(conn, 16).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "HTTP/1.1 200 OK\r\n", status)
	return conn
}

// smallSendBuffers is a listener whose connections have the smallest send
// buffer: a body of a few megabytes fills it, where the default buffers
// would take one of tens (slow to encode under the race detector).
type smallSendBuffers struct{ net.Listener }

func (l smallSendBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		err = tc.SetWriteBuffer(4096)
	}
	return c, err
}

// TestStalledClientDoesNotBlockReload: a client that opens GET /all of
// a catalog far larger than the socket buffers and reads nothing holds
// the snapshot it reads, and only that: the changed catalog is reloaded
// and served to other clients meanwhile, the old snapshot's file stays
// while the stalled client needs it and is removed once it goes away.
func TestStalledClientDoesNotBlockReload(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where Serve keeps the served files
	// 8 blobs of 256 KiB: 2 MiB, far more than both sockets' buffers.
	var big strings.Builder
	for i := range 8 {
		fmt.Fprintf(&big, `{"schema":"big","name":"b%d","pad":%q}`+"\n", i, strings.Repeat("x", 256<<10))
	}
	dir := writeFiles(t, map[string]string{"a-big.json": big.String(), "b-version.json": `{"schema":"version","name":"1"}`})
	version := filepath.Join(dir, "b-version.json")
	fingerprint := func() (string, error) {
		data, err := os.ReadFile(version)
		return string(data), err
	}
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	lis := smallSendBuffers{tcp}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- catalogdhttp.Serve(ctx, lis, catalogdhttp.Config{Name: "c", Source: catalogdhttp.DirSource(dir),
			Fingerprint: fingerprint, Interval: 10 * time.Millisecond, Reload: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	}()
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-done)
	})
	s := &server{base: "http://" + lis.Addr().String(), client: &http.Client{Transport: &http.Transport{DisableCompression: true}}}
	files := func() []string {
		l, err := filepath.Glob(filepath.Join(tmp, "olmcat-catalogd-*", "catalog-*.jsonl"))
		require.NoError(t, err)
		return l
	}
	require.Eventually(t, func() bool { return len(files()) == 1 }, 30*time.Second, 10*time.Millisecond)
	old := files()[0]
	require.Eventually(t, func() bool {
		resp, _ := s.do(t, "GET", "/healthz", nil)
		return resp.StatusCode == http.StatusOK
	}, 30*time.Second, 10*time.Millisecond)

	stalled := stalledGet(t, lis.Addr().String(), "/catalogs/c/api/v1/all")
	require.NoError(t, os.WriteFile(version, []byte(`{"schema":"version","name":"2"}`), 0o644))
	// Polled with a small query: each /all is megabytes.
	require.Eventually(t, func() bool {
		resp, body := s.do(t, "GET", "/catalogs/c/api/v1/metas?schema=version", nil)
		return resp.StatusCode == http.StatusOK && string(body) == `{"name":"2","schema":"version"}`+"\n"
	}, 30*time.Second, 10*time.Millisecond, "the changed catalog is served beside the stalled client")
	resp, body := s.do(t, "GET", "/catalogs/c/api/v1/all", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.True(t, strings.HasSuffix(string(body), `{"name":"2","schema":"version"}`+"\n"), "the whole changed catalog")
	require.FileExists(t, old, "the stalled client still reads the old snapshot")
	require.Len(t, files(), 2)

	require.NoError(t, stalled.Close())
	require.Eventually(t, func() bool { return len(files()) == 1 }, 30*time.Second, 10*time.Millisecond, "the old snapshot's file is removed once its client went away")
	require.NoFileExists(t, old)
}
