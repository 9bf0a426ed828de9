package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/catalogdtest"
	"github.com/operator-catalog/olmcat/registry/catalogdhttp"
)

// TestParityCatalogd: parity against a catalogd server compares blobs,
// against the files, a legacy index (as OLM v0 read it) and a live
// gRPC server.
func TestParityCatalogd(t *testing.T) {
	fixture := func(name, what string) string { return filepath.Join("..", "..", "fixtures", "legacy", name, what) }
	smallDB, smallDir, edgeDir := fixture("small-fbb", "index.db"), fixture("small-fbb", "opm-migrate"), fixture("edge-substitutes", "opm-migrate")
	url := catalogdtest.Serve(t, "ops", catalogdhttp.DirSource(smallDir))
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
