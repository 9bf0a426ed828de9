package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutputSymlinkDecidedUpFront (issue 25 item 3): an output path that
// is a symlink is written through to the directory it leads to, with the
// rules of a real directory (empty or --force), and the link stays; a
// symlink that leads nowhere or to a file is refused before any work
// (exit 2), leaving nothing beside it. Before, migrate ran the whole
// migration and then failed with "output exists and is not a directory",
// leaving the finished catalog beside the link.
func TestOutputSymlinkDecidedUpFront(t *testing.T) {
	db := filepath.Join(legacyFixtures, "small-fbb", "index.db")
	ref := filepath.Join(t.TempDir(), "ref")
	_, stderr, code := runCLI(t, "migrate", "--no-deprecation-warning", db, ref)
	require.Equal(t, 0, code, stderr)
	want := snapshotTree(t, ref)
	cases := []struct {
		name string
		// target prepares what the link points to (in dir) and returns it.
		target   func(t *testing.T, dir string) string
		force    bool
		wantCode int
		wantErr  string
	}{
		{name: "to an empty directory", target: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "target")
			require.NoError(t, os.Mkdir(p, 0o755))
			return p
		}},
		{name: "to a catalog, no --force", target: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "target")
			copyTree(t, opmManifests, p)
			return p
		}, wantCode: exitUsage, wantErr: "exists and is not empty"},
		{name: "to a catalog, --force", target: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "target")
			copyTree(t, opmManifests, p)
			return p
		}, force: true},
		{name: "dangling", target: func(t *testing.T, dir string) string {
			return filepath.Join(dir, "missing")
		}, force: true, wantCode: exitUsage, wantErr: "which does not exist"},
		{name: "to a file", target: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "file")
			require.NoError(t, os.WriteFile(p, []byte("keep\n"), 0o644))
			return p
		}, force: true, wantCode: exitUsage, wantErr: "exists and is not a directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			target := c.target(t, dir)
			link := filepath.Join(dir, "linkout")
			require.NoError(t, os.Symlink(target, link))
			before := treeNames(t, dir)
			var beforeTarget map[string]string
			if st, err := os.Stat(target); err == nil && st.IsDir() {
				beforeTarget = snapshotTree(t, target)
			}
			args := []string{"migrate", "--no-deprecation-warning", db, link}
			if c.force {
				args = append(args, "--force")
			}
			_, stderr, code := runCLI(t, args...)
			require.Equal(t, c.wantCode, code, stderr)
			st, err := os.Lstat(link)
			require.NoError(t, err)
			assert.NotZero(t, st.Mode()&os.ModeSymlink, "the link stays a link")
			assert.Empty(t, tempLeft(t, dir), "nothing is left beside the link or its target")
			if c.wantCode != 0 {
				assert.Contains(t, stderr, c.wantErr)
				assert.NotContains(t, stderr, "migrated ", "refused before the migration ran")
				assert.Equal(t, before, treeNames(t, dir), "nothing is added or removed")
				if beforeTarget != nil {
					assert.Equal(t, beforeTarget, snapshotTree(t, target), "the target is unchanged")
				}
				return
			}
			assert.Equal(t, want, snapshotTree(t, target), "the catalog is written to the link's target")
		})
	}
	// build --oci-layout decides the same before it builds.
	for _, c := range cases {
		if c.wantErr == "" || !c.force {
			continue
		}
		t.Run("build --oci-layout "+c.name, func(t *testing.T) {
			dir := t.TempDir()
			link := filepath.Join(dir, "linkout")
			require.NoError(t, os.Symlink(c.target(t, dir), link))
			_, stderr, code := runCLI(t, "build", opmManifests, "example.com/ns/c:v1", "--push=false", "--oci-layout", link, "--force")
			require.Equal(t, c.wantCode, code, stderr)
			assert.Contains(t, stderr, c.wantErr)
			assert.NotContains(t, stderr, "built ", "refused before the build ran")
			assert.Empty(t, tempLeft(t, dir))
		})
	}
}

// TestReaderFinishesInterruptedCommit (issue 25 item 4): after a writer
// was killed past its commit record (migrate --force between moving the
// old catalog aside and the new one in, which leaves no output at all;
// add between moving two packages in, which leaves a mix), a reader
// (validate, render, parity, and build, which loads it without detecting
// it first) finishes the commit before it reads, says so, and reads the
// new catalog whole. Before, readers failed on the
// missing output, or read the mix, until the next write.
func TestReaderFinishesInterruptedCommit(t *testing.T) {
	bin := buildCrashBinary(t)
	db := filepath.Join(legacyFixtures, "small-fbb", "index.db")
	couch := func(v string) string { return filepath.Join(fixtureBundles, "community/couchdb-operator", v) }
	etcd := filepath.Join(fixtureBundles, "opm-bundles/etcd.0.9.0")
	writers := []struct {
		name string
		// setup prepares the output in dir and returns the writer's args
		// and the output.
		setup  func(t *testing.T, dir string) ([]string, string)
		killAt string
	}{{
		name: "migrate --force",
		setup: func(t *testing.T, dir string) ([]string, string) {
			out := filepath.Join(dir, "catalog")
			copyTree(t, opmManifests, out)
			return []string{"migrate", "--no-deprecation-warning", "--force", db, out}, out
		},
		killAt: "move new output into place",
	}, {
		name: "add",
		setup: func(t *testing.T, dir string) ([]string, string) {
			out := filepath.Join(dir, "catalog")
			copyTree(t, "../../fixtures/legacy/small-fbb/opm-migrate", out)
			return []string{"add", out, couch("1.4.2"), etcd}, out
		},
		killAt: "move new entry into place",
	}}
	// Readers given the output and the reference output; tells: the
	// reader says what it finished (those that detect their input; the
	// others finish it through the catalog loader, silently).
	readers := []struct {
		name  string
		args  func(out, ref, dir string) []string
		tells bool
	}{
		{"validate", func(out, _, _ string) []string { return []string{"validate", out} }, true},
		{"render", func(out, _, _ string) []string { return []string{"render", out} }, true},
		{"parity", func(out, ref, _ string) []string { return []string{"parity", "--strict", out, ref} }, true},
		{"build", func(out, _, dir string) []string {
			return []string{"build", out, "example.com/ns/c:v1", "--push=false", "--oci-layout", filepath.Join(dir, "oci")}
		}, false},
	}
	for _, w := range writers {
		// The new output, written without a kill.
		refDir := t.TempDir()
		require.NoError(t, os.Mkdir(filepath.Join(refDir, "tmp"), 0o755))
		args, out := w.setup(t, refDir)
		stderr, code := crashRun{bin: bin, tmp: filepath.Join(refDir, "tmp")}.run(t, args...)
		require.Equal(t, 0, code, stderr)
		want := snapshotTree(t, out)
		for _, r := range readers {
			t.Run(w.name+"/"+r.name, func(t *testing.T) {
				dir := t.TempDir()
				tmp := filepath.Join(dir, "tmp")
				require.NoError(t, os.Mkdir(tmp, 0o755))
				args, out := w.setup(t, dir)
				stderr, code := crashRun{bin: bin, tmp: tmp, on: w.killAt}.run(t, args...)
				require.Equal(t, -1, code, stderr)

				stderr, code = crashRun{bin: bin, tmp: tmp}.run(t, r.args(out, filepath.Join(refDir, "catalog"), dir)...)
				require.Equal(t, 0, code, stderr)
				if r.tells {
					assert.Contains(t, stderr, "finished the write of "+out)
				}
				assert.Equal(t, want, snapshotTree(t, out), "the reader read the new catalog whole")
				assert.Empty(t, tempLeft(t, dir))
			})
		}
	}
}

// TestKilledCommitLosesToLaterOutput (issue 25 item 2): a writer killed
// after its commit record but before its output was in place, whose
// output another run then wrote, never replaces that output: the next run
// that finds it (here a reader) removes the killed run's work and says
// why. Before, the next writer moved the later output aside and deleted
// it (no --force) or failed on it for ever (--force), and readers left
// the killed run's copy beside the output.
func TestKilledCommitLosesToLaterOutput(t *testing.T) {
	bin := buildCrashBinary(t)
	for _, force := range []bool{false, true} {
		t.Run(map[bool]string{false: "no --force", true: "--force"}[force], func(t *testing.T) {
			dir := t.TempDir()
			tmp := filepath.Join(dir, "tmp")
			require.NoError(t, os.Mkdir(tmp, 0o755))
			in := filepath.Join(dir, "in")
			copyTree(t, "../../fixtures/legacy/small-fbb/opm-migrate", in)
			out := filepath.Join(dir, "out")
			args := []string{"convert", "-q", "--layout", "objects", in, out}
			if force {
				copyTree(t, "../../fixtures/legacy/small-fbb/opm-migrate", out)
				args = append(args, "--force")
			}
			stderr, code := crashRun{bin: bin, tmp: tmp, on: "move new output into place"}.run(t, args...)
			require.Equal(t, -1, code, stderr)
			require.NoDirExists(t, out, "killed before the output was in place")
			copyTree(t, opmManifests, out) // another run's output
			later := snapshotTree(t, out)

			stderr, code = crashRun{bin: bin, tmp: tmp}.run(t, "validate", out)
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, stderr, "another run had written "+out+" meanwhile, which is kept")
			assert.Equal(t, later, snapshotTree(t, out), "the later output stays")
			assert.Empty(t, tempLeft(t, dir))
		})
	}
}

// treeNames lists the paths under dir, symlinks not followed.
func treeNames(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		names = append(names, p)
		return err
	}))
	return names
}
