package outdir

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/pathcheck"
)

// TestCommitLosesRace: a commit decided without force on an absent (or
// empty) output that finds it filled by another run at the move keeps
// that output, removes its own work and says so (an existing-output
// error). Commit's check comes first, so the window is entered here by
// committing the record directly. (With force, another run's output
// that arrives before the move is replaced, as asked; one that arrives
// between the two moves wins: TestKilledCommitLosesToLaterOutput.)
func TestCommitLosesRace(t *testing.T) {
	for _, existing := range []bool{false, true} {
		t.Run(map[bool]string{false: "absent", true: "empty"}[existing], func(t *testing.T) {
			parent := t.TempDir()
			out := filepath.Join(parent, "out")
			if existing {
				require.NoError(t, os.Mkdir(out, 0o755))
			}
			tx, err := Begin(out, false)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(tx.Dir(), "mine"), []byte("mine"), 0o644))
			require.NoError(t, os.MkdirAll(filepath.Join(out, "theirs"), 0o755)) // the other run's output

			err = tx.commit(record{Keep: true})
			require.ErrorIs(t, err, pathcheck.ErrExists)
			assert.ErrorContains(t, err, "written by another run meanwhile, which is kept: this run's output is removed")
			assert.DirExists(t, filepath.Join(out, "theirs"))
			assert.NoFileExists(t, filepath.Join(out, "mine"))
			ents, err := os.ReadDir(parent)
			require.NoError(t, err)
			names := []string{}
			for _, e := range ents {
				names = append(names, e.Name())
			}
			assert.NotContains(t, names, filepath.Base(filepath.Dir(tx.Dir())), "this run's work is removed")
			assert.Empty(t, pendingCommits(out))
		})
	}
}

// TestFinishForRead: a reader that finds a commit record whose moves are
// not done refuses while the committing run holds it (ErrUnfinished,
// naming it), finishes it once that run is gone (as after a kill), and
// does nothing when nothing is pending.
func TestFinishForRead(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	swept, err := FinishForRead(out)
	require.NoError(t, err)
	assert.Empty(t, swept)

	tx, err := Begin(out, false)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(tx.Dir(), "f"), []byte("new"), 0o644))
	require.NoError(t, writeRecord(tx.work.Path, []byte(`{"entries":false,"keep":true}`)))
	_, err = FinishForRead(out)
	require.ErrorIs(t, err, ErrUnfinished)
	assert.ErrorContains(t, err, "another run is committing a write of it right now")
	assert.NoDirExists(t, out)

	tx.work.Release() // as the kernel does when the process dies
	tx.lock.Release()
	swept, err = FinishForRead(out)
	require.NoError(t, err)
	require.Len(t, swept, 1)
	assert.True(t, swept[0].Finished)
	assert.FileExists(t, filepath.Join(out, "f"))
	assert.Empty(t, pendingCommits(out))
}
