package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConcurrentWritersKilled: the crash harness with writers that meet.
// Ten real adds (the crashtest binary) into one package run at once;
// some kill themselves at a step of their write path (so they die
// holding the write lock, mid-commit or mid-cleanup), some are killed
// from outside at a random moment (waiting for the lock, rendering, or
// anywhere else), the rest run through. Whatever the mix:
//
//   - every directory left is olmcat's by its name (a later sweep takes
//     it), never a half-created or half-removed one;
//   - every add that exited 0 is in the catalog, and so is every add that
//     was killed after its commit record was in place (the next writer
//     finishes it); no other bundle is;
//   - the catalog validates, and the next add sweeps every leftover and
//     says so.
func TestConcurrentWritersKilled(t *testing.T) {
	bin := buildCrashBinary(t)
	t.Setenv(noDeprecationWarningEnv, "")
	versions := []string{"1.25.0", "1.26.0", "1.27.0", "1.28.0", "1.29.0", "1.30.0", "1.31.0", "1.32.0", "1.33.0", "1.34.0"}
	bundle := func(v string) string { return filepath.Join(fixtureBundles, "community", "kiali", v) }
	for _, v := range append([]string{"1.24.0", "1.35.0"}, versions...) {
		_, err := os.Stat(bundle(v))
		require.NoError(t, err, "fixture bundle kiali %s", v)
	}
	// Per round, what each process does: a step to die at (its own
	// crash point), a delay after which the test kills it, or neither.
	rounds := [][]struct {
		at   int
		kill time.Duration
	}{
		{{at: 9}, {}, {at: 17}, {kill: 20 * time.Millisecond}, {}, {at: 25}, {kill: 60 * time.Millisecond}, {}, {at: 33}, {kill: 150 * time.Millisecond}},
		{{}, {at: 5}, {kill: 5 * time.Millisecond}, {at: 21}, {}, {kill: 100 * time.Millisecond}, {at: 29}, {}, {at: 13}, {kill: 300 * time.Millisecond}},
	}
	for r, plan := range rounds {
		t.Run(fmt.Sprintf("round %d", r+1), func(t *testing.T) {
			dir := t.TempDir()
			tmp := filepath.Join(dir, "tmp")
			require.NoError(t, os.Mkdir(tmp, 0o755))
			cat := filepath.Join(dir, "catalog")
			copyTree(t, "../../fixtures/legacy/small-fbb/opm-migrate", cat)
			stderr, code := crashRun{bin: bin, tmp: tmp}.run(t, "add", cat, bundle("1.24.0"), "--mode", "semver")
			require.Equal(t, exitOK, code, stderr)

			var wg sync.WaitGroup
			codes := make([]int, len(plan))
			stderrs := make([]bytes.Buffer, len(plan))
			logs := make([]string, len(plan))
			for i, p := range plan {
				logs[i] = filepath.Join(dir, fmt.Sprintf("steps-%d", i))
				cmd := exec.Command(bin, "add", cat, bundle(versions[i]), "--mode", "semver")
				cmd.Env = append(os.Environ(), "TMPDIR="+tmp, fmt.Sprintf("OLMCAT_CRASH_AT=%d", p.at), "OLMCAT_CRASH_ON=", "OLMCAT_CRASH_LOG="+logs[i])
				cmd.Stderr = &stderrs[i]
				require.NoError(t, cmd.Start())
				wg.Add(1)
				go func() {
					defer wg.Done()
					if p.kill > 0 {
						time.AfterFunc(p.kill, func() { _ = cmd.Process.Signal(syscall.SIGKILL) })
					}
					_ = cmd.Wait()
					codes[i] = cmd.ProcessState.ExitCode()
				}()
			}
			wg.Wait()

			requireSweepable(t, tempLeft(t, dir), fmt.Sprintf("round %d", r+1))
			// The next writer finishes or sweeps what the killed ones left.
			stderr, code = crashRun{bin: bin, tmp: tmp}.run(t, "add", cat, bundle("1.35.0"), "--mode", "semver")
			require.Equal(t, exitOK, code, stderr)
			require.Empty(t, tempLeft(t, dir), "temporary directories left after the next add")

			got := map[string]bool{}
			for _, n := range bundleNames(t, cat) {
				got[n] = true
			}
			for i, p := range plan {
				name := "kiali-operator.v" + versions[i]
				committed, atRename := commitState(t, logs[i])
				switch {
				case codes[i] == -1 && atRename && p.kill > 0:
					// Killed from outside right at the commit record's
					// rename: either outcome is whole, nothing to assert.
				case codes[i] == exitOK:
					assert.True(t, got[name], "%s: its add exited 0, its bundle must be in the catalog", name)
				case codes[i] == -1 && committed:
					assert.True(t, got[name], "%s: killed after its commit record (plan %+v), the next writer finishes it", name, p)
				case codes[i] == -1:
					assert.False(t, got[name], "%s: killed before its commit record (plan %+v), nothing of it may land", name, p)
				default:
					assert.Fail(t, "unexpected exit", "%s: exit %d: %s", name, codes[i], stderrs[i].String())
				}
			}
			assert.True(t, got["kiali-operator.v1.35.0"], "the last add lands")
			stderr, code = runBinary(t, bin, "validate", cat)
			assert.Equal(t, exitOK, code, stderr)
		})
	}
}

// commitState reads the crash log of an add: whether it renamed the
// commit record of its catalog write into place, and whether the last
// step it logged is a commit record's rename (then a kill from outside
// may have landed just before or just after it). The catalog's commit
// replaces package folders: its record's rename is followed by a
// "move … entry …" step. An add also commits a staging directory inside
// its temporary directory first (followed by "move new output into
// place"), which decides nothing about the catalog; and the moves it
// makes to finish another run's commit follow no record of its own.
func commitState(t *testing.T, log string) (committed, atRename bool) {
	t.Helper()
	data, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return false, false
	}
	require.NoError(t, err)
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		_, name, _ := strings.Cut(l, " ")
		names = append(names, name)
	}
	for i := 0; i+1 < len(names); i++ {
		if names[i] == "rename commit record" &&
			(strings.HasPrefix(names[i+1], "move old entry aside ") || strings.HasPrefix(names[i+1], "move new entry into place ")) {
			committed = true
		}
	}
	return committed, len(names) > 0 && names[len(names)-1] == "rename commit record"
}
