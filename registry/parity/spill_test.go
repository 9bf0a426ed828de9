package parity

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/registry/api"
)

// TestSpillHasNoName (issue 25 item 2): a side's spilled ListBundles
// answer is never a named file in the temporary directory, so a check
// killed outright (kill -9, OOM) leaves nothing there. Before, the file
// stayed until a close that a killed run never reaches.
func TestSpillHasNoName(t *testing.T) {
	dir := t.TempDir()
	s, err := newSpill(dir)
	require.NoError(t, err)
	require.NoError(t, s.add(&api.Bundle{CsvName: "a.v1", PackageName: "a"}))
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, ents, "nothing named while the spill is in use")
	got, err := s.bundles("a")
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, "a.v1", got[0].GetCsvName())
	require.NoError(t, s.close())
}
