// Package catalogdtest serves a catalog over catalogd's HTTP API
// (registry/catalogdhttp) on a loopback port for a test, as
// net/http/httptest serves a handler.
package catalogdtest

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/registry/catalogdhttp"
)

// Serve serves the blobs of src as the catalog name on 127.0.0.1 until
// the test ends (the server must then stop cleanly) and returns the
// catalog's base URL, http://127.0.0.1:<port>/catalogs/<name>, once
// /healthz says it is loaded.
func Serve(t testing.TB, name string, src catalogdhttp.Source) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- catalogdhttp.Serve(ctx, lis, catalogdhttp.Config{Name: name, Source: src,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			assert.NoError(t, err)
		case <-time.After(30 * time.Second):
			assert.Fail(t, "catalogdhttp.Serve did not return after its context was cancelled")
		}
	})
	base := "http://" + lis.Addr().String()
	require.Eventually(t, func() bool {
		resp, err := http.Get(base + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 30*time.Second, 10*time.Millisecond)
	return base + "/catalogs/" + name
}
