package declcfg

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/tempdir"
)

// TestAbandonedTempDirs: a writer removes the temporary directories an
// earlier run for the same output left (marker not locked) and says so;
// it leaves those of a run still writing (marker locked) and folders that
// are not olmcat's (no marker).
func TestAbandonedTempDirs(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "catalog")
	mk := func(name string, marker bool) string {
		dir := filepath.Join(parent, name)
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "pkg"), 0o755))
		if marker {
			require.NoError(t, os.WriteFile(filepath.Join(dir, tempdir.OwnerFile), []byte("pid 1\n"), 0o644))
		}
		return dir
	}
	abandoned := mk(".catalog.tmp-111", true)
	running := mk(".catalog.tmp-222", true)
	foreign := mk(".catalog.tmp-333", false)
	other := mk(".other.tmp-444", true)
	lock, err := os.Open(filepath.Join(running, tempdir.OwnerFile))
	require.NoError(t, err)
	defer lock.Close()
	require.NoError(t, syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB))

	var told []string
	cfg := &DeclarativeConfig{Packages: []Package{{Schema: SchemaPackage, Name: "p"}}}
	require.NoError(t, WriteDir(cfg, out, WithOnAbandonedRemoved(func(dir string) { told = append(told, dir) })))
	assert.Equal(t, []string{"removed abandoned temporary directory " + abandoned + " (left by an earlier run that was killed)"}, told)
	assert.NoDirExists(t, abandoned)
	assert.DirExists(t, running)
	assert.DirExists(t, foreign)
	assert.DirExists(t, other)
	assert.NoFileExists(t, filepath.Join(out, tempdir.OwnerFile), "the marker never reaches the output")
}
