package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/outdir"
	"github.com/operator-catalog/olmcat/internal/tempdir"
	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

// The crash harness: the real binary, built with the crashtest tag
// (internal/crashpoint), kills itself with SIGKILL at step k of its write
// path (every rename, every file written, every commit record), for every
// k; then the same command runs again and must leave the new output
// complete (byte for byte what an uninterrupted run writes), the inputs
// unchanged and no temporary directory anywhere.

// buildCrashBinary builds cmd/olmcat with the crashtest tag, static, so
// that build can put it into the images it makes.
func buildCrashBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "olmcat-crashtest")
	build := exec.Command("go", "build", "-tags", "crashtest", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	return bin
}

// crashRun is one run of the crash binary in a case's directory.
type crashRun struct {
	bin, tmp string // tmp is the run's TMPDIR
	at       int    // the step to die at; 0 never
	on       string // or the first step whose name starts with this
	log      string // where to count the steps; "" not
}

// run returns stderr and the exit code (-1 when killed by a signal).
func (r crashRun) run(t *testing.T, args ...string) (string, int) {
	t.Helper()
	env := append(os.Environ(), "TMPDIR="+r.tmp, fmt.Sprintf("OLMCAT_CRASH_AT=%d", r.at), "OLMCAT_CRASH_ON="+r.on, "OLMCAT_CRASH_LOG="+r.log)
	return runBinaryEnv(t, r.bin, env, args...)
}

// crashCase is one command under the harness.
type crashCase struct {
	name string
	// setup prepares a fresh case directory (the previous output, if
	// any, in place) and returns the command's arguments, its output and
	// its inputs.
	setup func(t *testing.T, bin, dir string) (args []string, out string, inputs []string)
	// rerunExit are the exit codes a rerun may have besides 0 (add's
	// rerun refuses bundles a finished commit already added).
	rerunExit []int
	// tellsAtEnd: the command does not print what it recovered before
	// its first write (migrate: in its final summary, which the probe
	// never reaches), so that is not checked here.
	tellsAtEnd bool
}

// runCrashCase runs c once uninterrupted to learn the new output and the
// number of steps, then once killed at each step followed by a rerun.
func runCrashCase(t *testing.T, bin string, c crashCase) {
	t.Helper()
	ref := t.TempDir()
	refTmp := filepath.Join(ref, "tmp")
	require.NoError(t, os.Mkdir(refTmp, 0o755))
	args, out, _ := c.setup(t, bin, ref)
	log := filepath.Join(t.TempDir(), "steps")
	stderr, code := crashRun{bin: bin, tmp: refTmp, log: log}.run(t, args...)
	require.Equal(t, 0, code, stderr)
	want := snapshotTree(t, out)
	data, err := os.ReadFile(log)
	require.NoError(t, err)
	steps := strings.Count(string(data), "\n")
	require.Greater(t, steps, 3, "the write path marks its steps")
	t.Logf("%d steps", steps)
	for k := 1; k <= steps; k++ {
		dir, err := os.MkdirTemp(t.TempDir(), "k")
		require.NoError(t, err)
		tmp := filepath.Join(dir, "tmp")
		require.NoError(t, os.Mkdir(tmp, 0o755))
		args, out, inputs := c.setup(t, bin, dir)
		before := map[string]map[string]string{}
		for _, in := range inputs {
			before[in] = snapshotTree(t, in)
		}
		previous := snapshotTree(t, out)
		stderr, code := crashRun{bin: bin, tmp: tmp, at: k}.run(t, args...)
		require.Equal(t, -1, code, "step %d of %d: the run was not killed: %s", k, steps, stderr)
		left := tempLeft(t, dir)
		requireSweepable(t, left, fmt.Sprintf("kill at step %d (%s)", k, stepName(data, k)))
		// The probe reruns the command up to the point where it would
		// start writing: the recovery of what the kill left has run, the
		// new write has not, so the output must be the previous or the
		// new one, complete.
		said, _ := crashRun{bin: bin, tmp: tmp, on: "create temporary directory " + outdir.Prefix(out)}.run(t, args...)
		got := snapshotTree(t, out)
		require.True(t, equalTrees(got, previous) || equalTrees(got, want),
			"after a kill at step %d (%s) the output is neither the previous nor the new one: %d files", k, stepName(data, k), len(got))
		stderr, code = crashRun{bin: bin, tmp: tmp}.run(t, args...)
		said += stderr
		if code != 0 {
			require.Contains(t, c.rerunExit, code, "rerun after a kill at step %d: %s", k, stderr)
		}
		require.True(t, equalTrees(want, snapshotTree(t, out)), "after a kill at step %d (%s) and a rerun the output is not the new one", k, stepName(data, k))
		for _, in := range inputs {
			require.Equal(t, before[in], snapshotTree(t, in), "input %s changed (kill at step %d)", in, k)
		}
		require.Empty(t, tempLeft(t, dir), "temporary directories left after the rerun (kill at step %d)", k)
		if len(left) > 0 && !c.tellsAtEnd {
			require.Regexp(t, "removed abandoned temporary directory|finished the write", said, "the rerun says what it did with %v", left)
		}
		require.NoError(t, os.RemoveAll(dir))
	}
}

// equalTrees compares two snapshots (without a diff that would not fit
// a message).
func equalTrees(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// stepName is the name the log gives step k.
func stepName(log []byte, k int) string {
	lines := strings.Split(string(log), "\n")
	if k-1 < len(lines) {
		return lines[k-1]
	}
	return "?"
}

// tempLeft lists the temporary files and directories under dir: olmcat's
// (.<name>.tmp-*, olmcat-* in the run's TMPDIR, owner markers) and
// anything else in TMPDIR.
func tempLeft(t *testing.T, dir string) []string {
	t.Helper()
	var left []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if strings.Contains(name, ".tmp-") || strings.HasPrefix(name, ".olmcat-") || strings.Contains(name, ".olmcat-tmp-") ||
			(filepath.Dir(p) == filepath.Join(dir, "tmp")) {
			left = append(left, p)
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	}))
	return left
}

// requireSweepable: every temporary directory a kill left is olmcat's by
// its name (in use or being removed), so that a later run's sweep
// recognises it: none is a half-removed or half-created directory that
// no sweep would ever take.
func requireSweepable(t *testing.T, left []string, when string) {
	t.Helper()
	for _, p := range left {
		st, err := os.Lstat(p)
		require.NoError(t, err)
		require.True(t, st.IsDir() && tempdir.IsMarked(filepath.Base(p)), "%s is left and no sweep recognises it (%s)", p, when)
	}
}

// TestCrashHarness kills add, migrate, convert, build --oci-layout and
// unpack (image to folder) at every step of their write paths and checks
// what the rerun leaves.
func TestCrashHarness(t *testing.T) {
	bin := buildCrashBinary(t)
	reg := imagetest.New(t)
	_, imageFlags := imageTestEnv(t)
	// The subprocesses read the registries.conf the environment names.
	require.NoError(t, os.WriteFile(os.Getenv(image.RegistriesConfEnv), nil, 0o644))
	fbcRef := pushConfigsImage(t, reg, "crash/fbc:v1", "../../fixtures/legacy/small-fbb/opm-migrate")
	couch := func(v string) string { return filepath.Join(fixtureBundles, "community/couchdb-operator", v) }
	small := filepath.Join(legacyFixtures, "small-fbb", "index.db")
	oldLayout := ""
	cases := []crashCase{{
		// Two packages changed in one call, one of them with an earlier
		// bundle that must survive (issue: a kill during the swap lost it).
		name: "add",
		setup: func(t *testing.T, bin, dir string) ([]string, string, []string) {
			cat := filepath.Join(dir, "catalog")
			copyTree(t, "../../fixtures/legacy/small-fbb/opm-migrate", cat)
			stderr, code := crashRun{bin: bin, tmp: filepath.Join(dir, "tmp")}.run(t, "add", cat, couch("1.4.2"))
			require.Equal(t, 0, code, stderr)
			return []string{"add", cat, couch("1.4.3"), filepath.Join(fixtureBundles, "opm-bundles/etcd.0.9.0")}, cat,
				[]string{couch("1.4.3"), filepath.Join(fixtureBundles, "opm-bundles/etcd.0.9.0")}
		},
		rerunExit: []int{exitInvalid},
	}, {
		// Replacing an existing output (issue: a kill between the two
		// renames left no output and nothing said so).
		name: "migrate --force",
		setup: func(t *testing.T, bin, dir string) ([]string, string, []string) {
			out := filepath.Join(dir, "out", "catalog")
			copyTree(t, opmManifests, out)
			return []string{"migrate", "--no-deprecation-warning", "--force", small, out}, out, []string{small}
		},
		tellsAtEnd: true,
	}, {
		name: "convert --force",
		setup: func(t *testing.T, bin, dir string) ([]string, string, []string) {
			in := filepath.Join(dir, "in")
			copyTree(t, "../../fixtures/legacy/small-fbb/opm-migrate", in)
			out := filepath.Join(dir, "out")
			copyTree(t, opmManifests, out)
			return []string{"convert", "-q", "--layout", "objects", "--force", in, out}, out, []string{in}
		},
	}, {
		// Replacing a layout: the layout is written by
		// go-containerregistry inside the temporary directory, then
		// committed.
		name: "build --oci-layout --force",
		setup: func(t *testing.T, bin, dir string) ([]string, string, []string) {
			in := filepath.Join(dir, "in")
			copyTree(t, "../../fixtures/legacy/small-fbb/opm-migrate", in)
			out := filepath.Join(dir, "oci")
			if oldLayout == "" { // built once, copied for every step
				oldLayout = filepath.Join(t.TempDir(), "oci")
				stderr, code := crashRun{bin: bin, tmp: filepath.Join(dir, "tmp")}.run(t, "build", opmManifests, "example.com/ns/old:v1", "--push=false", "--oci-layout", oldLayout)
				require.Equal(t, 0, code, stderr)
			}
			copyTree(t, oldLayout, out)
			return []string{"build", in, "example.com/ns/catalog:v1", "--push=false", "--oci-layout", out, "--force"}, out, []string{in}
		},
	}, {
		name: "unpack --force",
		setup: func(t *testing.T, bin, dir string) ([]string, string, []string) {
			out := filepath.Join(dir, "fbc")
			copyTree(t, opmManifests, out)
			// A layer cache of each run's own, empty at first: every run
			// downloads, so the kills reach the cache's download steps and
			// the rerun finds what they left there.
			args := append([]string{"unpack", fbcRef, out, "--force"}, imageFlags...)
			args = append(args, "--image-cache-dir", filepath.Join(dir, "image-cache"))
			return args, out, nil
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runCrashCase(t, bin, c) })
	}
}

// TestMigrateForceKilledBetweenRenames: migrate --force killed between
// moving the old output aside and moving the new one in left no output,
// two directories nobody removed and no word about them. The next run now
// finishes the replacement first and says so (in its summary and its
// report), and nothing is left beside the output.
func TestMigrateForceKilledBetweenRenames(t *testing.T) {
	bin := buildCrashBinary(t)
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	require.NoError(t, os.Mkdir(tmp, 0o755))
	out := filepath.Join(dir, "out", "catalog")
	copyTree(t, opmManifests, out)
	db := filepath.Join(legacyFixtures, "small-fbb", "index.db")
	args := []string{"migrate", "--no-deprecation-warning", "--force", db, out}
	stderr, code := crashRun{bin: bin, tmp: tmp, on: "move new output into place"}.run(t, args...)
	require.Equal(t, -1, code, stderr)
	require.NoDirExists(t, out, "killed between the renames")

	report := filepath.Join(dir, "report.json")
	stderr, code = crashRun{bin: bin, tmp: tmp}.run(t, append(args, "--report", report)...)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "finished the write of "+out+" that an earlier run had committed when it was killed")
	data, err := os.ReadFile(report)
	require.NoError(t, err)
	require.Contains(t, string(data), "finished the write of")
	require.Empty(t, tempLeft(t, dir))
	ents, err := os.ReadDir(filepath.Dir(out))
	require.NoError(t, err)
	require.Len(t, ents, 1, "only the output beside it")
}
