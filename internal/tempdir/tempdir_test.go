package tempdir

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSweepByName: a sweep takes what is olmcat's by its name and no
// process holds (a directory a kill left right after its creation, a
// removal a kill interrupted, an older release's directory with an
// unlocked owner marker) and leaves directories in use and directories
// that are not olmcat's.
func TestSweepByName(t *testing.T) {
	parent := t.TempDir()
	mk := func(name string, files ...string) string {
		dir := filepath.Join(parent, name)
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "new", "pkg"), 0o755))
		for _, f := range files {
			require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o644))
		}
		return dir
	}
	created := mk(".out.tmp-1" + liveMark)
	trash := mk(".out.tmp-2" + trashMark)
	legacy := mk(".out.tmp-3", OwnerFile)
	foreign := mk(".out.tmp-4")
	other := mk(".other.tmp-5" + liveMark)
	live, err := Create(parent, ".out.tmp-")
	require.NoError(t, err)
	defer live.Remove()
	assert.True(t, IsMarked(filepath.Base(live.Path)), "marked from the moment it exists: %s", live.Path)

	removed, err := Sweep(parent, ".out.tmp-")
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{created, trash, legacy}, removed)
	for _, p := range removed {
		assert.NoDirExists(t, p)
	}
	assert.DirExists(t, live.Path)
	assert.DirExists(t, foreign)
	assert.DirExists(t, other)
}

// TestRemoveGoesThroughTrash: Remove leaves nothing, and is idempotent.
// (That it renames to the trash name before it removes anything is what
// the crash tests kill: TestKilledTempDirsAreSwept.)
func TestRemoveGoesThroughTrash(t *testing.T) {
	parent := t.TempDir()
	d, err := Create(parent, "p-")
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(d.Path, "old", "x"), 0o755))
	require.NoError(t, d.Remove())
	require.NoError(t, d.Remove(), "idempotent")
	ents, err := os.ReadDir(parent)
	require.NoError(t, err)
	assert.Empty(t, ents)

}
