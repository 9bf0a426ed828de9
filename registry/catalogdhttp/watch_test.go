package catalogdhttp_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/registry/catalogdhttp"
)

// TestWatch: a change of the served files stops serving the catalog
// until a restart (404, /healthz 503), or with Reload serves the changed
// catalog once encoded again.
func TestWatch(t *testing.T) {
	for _, reload := range []bool{false, true} {
		t.Run(map[bool]string{false: "no reload", true: "reload"}[reload], func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"c.json": `{"schema":"a"}`})
			file := filepath.Join(dir, "c.json")
			fingerprint := func() (string, error) {
				data, err := os.ReadFile(file)
				return string(data), err
			}
			lis, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				done <- catalogdhttp.Serve(ctx, lis, catalogdhttp.Config{Name: "c", Source: catalogdhttp.DirSource(dir),
					Fingerprint: fingerprint, Interval: 10 * time.Millisecond, Reload: reload, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			}()
			t.Cleanup(func() {
				cancel()
				assert.NoError(t, <-done)
			})
			s := &server{base: "http://" + lis.Addr().String(), client: http.DefaultClient}
			require.Eventually(t, func() bool {
				resp, err := http.Get(s.base + "/healthz")
				if err == nil {
					resp.Body.Close()
				}
				return err == nil && resp.StatusCode == http.StatusOK
			}, 30*time.Second, 10*time.Millisecond)
			_, body := s.do(t, "GET", "/catalogs/c/api/v1/all", nil)
			require.Equal(t, `{"schema":"a"}`+"\n", string(body))

			require.NoError(t, os.WriteFile(file, []byte(`{"schema":"b"}`), 0o644))
			want := http.StatusNotFound
			if reload {
				want = http.StatusOK
			}
			require.Eventually(t, func() bool {
				resp, body := s.do(t, "GET", "/catalogs/c/api/v1/all", nil)
				return resp.StatusCode == want && (!reload || string(body) == `{"schema":"b"}`+"\n")
			}, 30*time.Second, 10*time.Millisecond)
			resp, body := s.do(t, "GET", "/healthz", nil)
			if reload {
				require.Equal(t, http.StatusOK, resp.StatusCode)
			} else {
				require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
				require.Contains(t, string(body), "the catalog changed on disk since it was loaded; restart the server to serve it")
			}
		})
	}
}

// TestServeLoadError: a catalog that does not load is Serve's error, or
// with HoldOnLoadError is answered as unknown until the run ends.
func TestServeLoadError(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.json": `{"schema":"a"}{"schema":1}`})
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	err = catalogdhttp.Serve(context.Background(), lis, catalogdhttp.Config{Name: "c", Source: catalogdhttp.DirSource(dir), Logger: logger})
	require.ErrorContains(t, err, `load c.json: blob #1: key "schema": must be a string`)

	lis, err = net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- catalogdhttp.Serve(ctx, lis, catalogdhttp.Config{Name: "c", Source: catalogdhttp.DirSource(dir), HoldOnLoadError: true, Logger: logger})
	}()
	s := &server{base: "http://" + lis.Addr().String(), client: http.DefaultClient}
	// 503 until loaded too: wait for the load's failure as the reason.
	require.Eventually(t, func() bool {
		resp, err := http.Get(s.base + "/healthz")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return err == nil && resp.StatusCode == http.StatusServiceUnavailable && strings.Contains(string(body), "must be a string")
	}, 30*time.Second, 10*time.Millisecond)
	resp, _ := s.do(t, "GET", "/catalogs/c/api/v1/all", nil)
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	cancel()
	require.ErrorContains(t, <-done, "must be a string")
}

// TestServeStoppedWhileLoading: a stop before the catalog is served ends
// the run with the load's error, ctx's, as the gRPC server's does (the
// CLI says "interrupted"); the listener answers 404 until then.
func TestServeStoppedWhileLoading(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	loading := make(chan struct{})
	src := func(ctx context.Context, _ catalogdhttp.Emit) error {
		close(loading)
		<-ctx.Done()
		return ctx.Err()
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- catalogdhttp.Serve(ctx, lis, catalogdhttp.Config{Name: "c", Source: src, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	}()
	<-loading
	resp, err := http.Get("http://" + lis.Addr().String() + "/catalogs/c/api/v1/all")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
}
