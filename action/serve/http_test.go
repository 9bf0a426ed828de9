package serve_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/action/serve"
	"github.com/operator-catalog/olmcat/migrate"
)

// readyHandler is a slog.Handler that hands on the URL of /all the
// catalogd HTTP API logs once its catalog is loaded, and the address the
// gRPC API logs once it serves.
type readyHandler struct {
	url  chan string
	grpc chan string
}

func (h readyHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h readyHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h readyHandler) WithGroup(string) slog.Handler            { return h }
func (h readyHandler) Handle(_ context.Context, r slog.Record) error {
	if url, ok := strings.CutPrefix(r.Message, "catalogd HTTP API ready at "); ok {
		h.url <- url
	}
	if addr, ok := strings.CutPrefix(r.Message, "serving on "); ok {
		h.grpc <- addr
	}
	return nil
}

// startHTTP runs s (its catalogd HTTP API on a free loopback port) until
// the test ends and returns the URL of /all it logs, once the gRPC API
// (unless NoGRPC) serves too: a stop while a catalog loads is an error.
func startHTTP(t *testing.T, s serve.Serve) string {
	t.Helper()
	url, _ := startBoth(t, s)
	return url
}

// startBoth is startHTTP, also returning the address the gRPC API serves
// on ("" with NoGRPC).
func startBoth(t *testing.T, s serve.Serve) (string, string) {
	t.Helper()
	h := readyHandler{url: make(chan string, 1), grpc: make(chan string, 1)}
	s.Logger = slog.New(h)
	s.HTTPAddr = "127.0.0.1:0"
	s.Open = resolve
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.Run(ctx)
		done <- err
	}()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	var url string
	select {
	case url = <-h.url:
	case err := <-done:
		require.FailNow(t, "Run returned before serving", "%v", err)
	case <-time.After(60 * time.Second):
		require.FailNow(t, "no catalogd HTTP API ready line logged")
	}
	var grpcAddr string
	if !s.NoGRPC {
		select {
		case grpcAddr = <-h.grpc:
		case err := <-done:
			require.FailNow(t, "Run returned before serving", "%v", err)
		case <-time.After(60 * time.Second):
			require.FailNow(t, "no gRPC serving line logged")
		}
	}
	return url, grpcAddr
}

// get returns the body of url.
func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, url)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(body)
}

// TestServeHTTPSQLite: a legacy index is served over catalogd's HTTP API
// as the blobs of its migration, in the order catalogd walks the
// migrated directory: the same body as serving that directory.
func TestServeHTTPSQLite(t *testing.T) {
	migrated := filepath.Join(t.TempDir(), "small-fbb")
	_, err := migrate.Migrate(context.Background(), smallIndex, migrated)
	require.NoError(t, err)
	fromDB := startHTTP(t, serve.Serve{Catalog: smallIndex, NoGRPC: true, CatalogName: "small"})
	fromDir := startHTTP(t, serve.Serve{Catalog: migrated, NoGRPC: true})
	require.True(t, strings.HasSuffix(fromDir, "/catalogs/small-fbb/api/v1/all"), "the default name is the directory's: %s", fromDir)
	require.True(t, strings.HasSuffix(fromDB, "/catalogs/small/api/v1/all"), fromDB)
	want := get(t, fromDir)
	require.NotEmpty(t, want)
	require.Equal(t, want, get(t, fromDB))
	metas := strings.TrimSuffix(fromDB, "/all") + "/metas?schema=olm.package&name=foo"
	require.Equal(t, `"foo"`, strings.Split(strings.Split(get(t, metas), `"name":`)[1], ",")[0])
}

// TestServeHTTPBesideGRPC: both APIs at once, the gRPC one as before.
func TestServeHTTPBesideGRPC(t *testing.T) {
	url := startHTTP(t, serve.Serve{Catalog: smallCatalog, CatalogName: "small"})
	require.Contains(t, get(t, url), `"schema":"olm.package"`)
}
