package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestZeroedCatalogFileRefused: a catalog file a crash left zeroed (8192
// NUL bytes) makes validate, render, convert, add and serve fail naming
// the file and the offset; validate used to print OK with the package
// gone.
func TestZeroedCatalogFileRefused(t *testing.T) {
	cat := filepath.Join(t.TempDir(), "catalog")
	copyTree(t, "../../fixtures/legacy/small-fbb/opm-migrate", cat)
	require.NoError(t, os.WriteFile(filepath.Join(cat, "bar", "catalog.json"), make([]byte, 8192), 0o644))
	before := snapshotTree(t, cat)
	for _, args := range [][]string{
		{"validate", cat},
		{"render", cat},
		{"convert", cat, filepath.Join(t.TempDir(), "out")},
		{"add", cat, filepath.Join(fixtureBundles, "community/couchdb-operator", "1.4.2")},
		{"serve", cat, "--port", "0"},
	} {
		stdout, stderr, code := runCLI(t, args...)
		assert.Equal(t, exitInvalid, code, "%v: %s", args, stderr)
		assert.Contains(t, stdout+stderr, "bar/catalog.json", args)
		assert.Contains(t, stdout+stderr, "NUL byte at byte offset 0", args)
		assert.False(t, strings.Contains(stdout, "OK"), args)
	}
	require.Equal(t, before, snapshotTree(t, cat))
}
