//go:build !slim

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReportFileWritesThroughLinks: a report destination that is a
// symlink to nothing is a usage error before any work (where a report
// goes, written through links, fifos and descriptors, is
// internal/reportfile's to test).
func TestReportFileWritesThroughLinks(t *testing.T) {
	db := filepath.Join(legacyFixtures, "small-fbb", "index.db")
	dir := t.TempDir()
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink("nowhere.json", link))
	_, stderr, code := runCLI(t, "migrate", "--no-deprecation-warning", "--report", link, "--force", db, filepath.Join(dir, "out"))
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, stderr, "which does not exist")
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, ents, 1, "no work done: only the link")
}
