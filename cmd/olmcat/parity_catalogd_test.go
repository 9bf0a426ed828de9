package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/registry/catalogdhttp"
)

// serveCatalogd serves dir over catalogd's HTTP API on a loopback port
// until the test ends; it returns the catalog's base URL once loaded.
func serveCatalogd(t *testing.T, dir string) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- catalogdhttp.Serve(ctx, lis, catalogdhttp.Config{Name: "ops", Source: catalogdhttp.DirSource(dir),
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	}()
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-done)
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
	return base + "/catalogs/ops"
}

// TestParityCatalogd: parity against a catalogd server compares blobs,
// against the files, a legacy index (as OLM v0 read it) and a live
// gRPC server.
func TestParityCatalogd(t *testing.T) {
	fixture := func(name, what string) string { return filepath.Join("..", "..", "fixtures", "legacy", name, what) }
	smallDB, smallDir, edgeDir := fixture("small-fbb", "index.db"), fixture("small-fbb", "opm-migrate"), fixture("edge-substitutes", "opm-migrate")
	url := serveCatalogd(t, smallDir)
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{name: "the files catalogd serves", args: []string{"parity", "--strict", smallDir, url},
			stdout: []string{"BLOB KIND", "olm.bundle", "PARITY: ", "all identical"}},
		{name: "OLM v0's view of the index against OLM v1's of its migration", args: []string{"parity", "--via-grpc", "--no-deprecation-warning", smallDB, url},
			stdout: []string{"required-properties-fbc-only", "not-carried-by-grpc", "PARITY: no loss"}},
		{name: "another catalog", args: []string{"parity", edgeDir, url}, code: exitInvalid,
			stdout: []string{"blob-missing", "LOSS"}, stderr: []string{"blobs lost data"}},
		{name: "a kind for a catalogd side", args: []string{"parity", "--left-kind", "declcfg", url, smallDir}, code: exitUsage,
			stderr: []string{"catalogd server"}},
		{name: "a catalog catalogd does not serve", args: []string{"parity", smallDir, url + "-missing"}, code: 1,
			stderr: []string{"404 Not Found"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tc.args...)
			require.Equal(t, tc.code, code, "stderr: %s", stderr)
			for _, s := range tc.stdout {
				assert.Contains(t, stdout, s)
			}
			for _, s := range tc.stderr {
				assert.Contains(t, stderr, s)
			}
		})
	}

	t.Run("json", func(t *testing.T) {
		stdout, stderr, code := runCLI(t, "parity", "-o", "json", url, smallDir)
		require.Equal(t, exitOK, code, stderr)
		var res struct {
			Mode  string `json:"mode"`
			Calls int    `json:"calls"`
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &res))
		assert.Equal(t, "blobs", res.Mode)
		assert.Positive(t, res.Calls)
	})
}
