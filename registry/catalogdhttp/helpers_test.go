package catalogdhttp_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/registry/catalogdhttp"
)

var update = flag.Bool("update", false, "rewrite the golden HTTP exchanges")

// server is catalogdhttp.Serve on a loopback port.
type server struct {
	base   string // http://127.0.0.1:port
	client *http.Client
}

// startServer serves the catalog src as name on a loopback port until
// the test ends, and waits until it is loaded.
func startServer(t testing.TB, name string, src catalogdhttp.Source) *server {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	go func() {
		done <- catalogdhttp.Serve(ctx, lis, catalogdhttp.Config{Name: name, Source: src, Logger: logger})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			assert.NoError(t, err)
		case <-time.After(30 * time.Second):
			assert.Fail(t, "Serve did not return after its context was cancelled")
		}
	})
	// The transport must not ask for gzip on its own: the tests choose.
	s := &server{base: "http://" + lis.Addr().String(), client: &http.Client{Transport: &http.Transport{DisableCompression: true}}}
	require.Eventually(t, func() bool {
		resp, err := s.client.Get(s.base + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 30*time.Second, 10*time.Millisecond)
	return s
}

// exchange is one request of a golden test.
type exchange struct {
	name    string
	method  string
	path    string
	headers []string // "Key: value"; {lastmod} and {etag} are the served ones
}

// do sends the request and returns the response with its body read.
func (s *server) do(t *testing.T, method, path string, headers []string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, s.base+path, nil)
	require.NoError(t, err)
	for _, h := range headers {
		k, v, ok := strings.Cut(h, ": ")
		require.True(t, ok, h)
		req.Header.Add(k, v)
	}
	resp, err := s.client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, body
}

// transcript writes a request and its response as the golden files hold
// them: the request, the status, every header but Date (Last-Modified
// as {lastmod}), and the body (a gzip body decompressed, said so).
func transcript(t *testing.T, ex exchange, resp *http.Response, body []byte, lastMod string) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", ex.method, ex.path)
	for _, h := range ex.headers {
		fmt.Fprintln(&b, h)
	}
	fmt.Fprintf(&b, "\n%s\n", resp.Status)
	keys := make([]string, 0, len(resp.Header))
	for k := range resp.Header {
		if k != "Date" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range resp.Header[k] {
			if lastMod != "" && v == lastMod {
				v = "{lastmod}"
			}
			fmt.Fprintf(&b, "%s: %s\n", k, v)
		}
	}
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		require.NoError(t, err)
		body, err = io.ReadAll(zr)
		require.NoError(t, err)
		fmt.Fprintf(&b, "\n(gzip body, %d bytes decompressed)\n", len(body))
	} else {
		fmt.Fprintln(&b)
	}
	b.Write(body)
	return b.String()
}

// golden compares got with testdata/<name>, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to write the golden file")
	assert.Equal(t, string(want), got)
}

// writeFiles writes files (name -> content) under a new directory.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return dir
}
