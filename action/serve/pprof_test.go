package serve_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/action/serve"
)

// pprofOn finds the endpoint's address in its log.
var pprofOn = regexp.MustCompile(`pprof endpoint on ([^\s"]+)`)

// getPprof returns the status and body of path on the endpoint at addr.
func getPprof(t *testing.T, addr, path string) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + addr + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

// startPprof starts p logging into a buffer and returns the endpoint's
// address.
func startPprof(t *testing.T, p serve.Pprof) (serve.Profiler, string) {
	t.Helper()
	var log bytes.Buffer
	p.Logger = slog.New(slog.NewTextHandler(&log, nil))
	pr := serve.StartPprof(context.Background(), p)
	t.Cleanup(pr.Stop)
	m := pprofOn.FindStringSubmatch(log.String())
	require.NotNil(t, m, log.String())
	return pr, m[1]
}

// TestPprofStartupProfile: the start-up CPU profile is answered once
// the catalog is served (503 before), beside net/http/pprof.
func TestPprofStartupProfile(t *testing.T) {
	pr, addr := startPprof(t, serve.Pprof{Addr: "127.0.0.1:0", CaptureStartup: true})
	code, _ := getPprof(t, addr, "/debug/pprof/startup/cpu")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	pr.Ready()
	code, body := getPprof(t, addr, "/debug/pprof/startup/cpu")
	assert.Equal(t, http.StatusOK, code)
	assert.NotEmpty(t, body)
	code, _ = getPprof(t, addr, "/debug/pprof/cmdline")
	assert.Equal(t, http.StatusOK, code)
	pr.Stop()
	_, err := http.Get("http://" + addr + "/debug/pprof/")
	assert.Error(t, err, "stopped")
}

// TestPprofNotCaptured: without the capture the start-up profile is a
// 404 in the caller's words.
func TestPprofNotCaptured(t *testing.T) {
	pr, addr := startPprof(t, serve.Pprof{Addr: "127.0.0.1:0", NotCaptured: "not asked for"})
	pr.Ready()
	code, body := getPprof(t, addr, "/debug/pprof/startup/cpu")
	assert.Equal(t, http.StatusNotFound, code)
	assert.Equal(t, "not asked for\n", body)
}

// TestPprofBusyAddress: an address in use is a warning; the profiler
// still works (Ready and Stop do nothing harmful).
func TestPprofBusyAddress(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer lis.Close()
	var log bytes.Buffer
	pr := serve.StartPprof(context.Background(), serve.Pprof{Addr: lis.Addr().String(), Logger: slog.New(slog.NewTextHandler(&log, nil))})
	assert.Contains(t, log.String(), "pprof endpoint not started")
	pr.Ready()
	pr.Stop()

	// No endpoint at all: nothing is logged.
	log.Reset()
	pr = serve.StartPprof(context.Background(), serve.Pprof{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	pr.Stop()
	assert.Empty(t, log.String())
}
