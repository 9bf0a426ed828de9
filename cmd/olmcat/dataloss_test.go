package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/dbbuild"
)

// buildBinary builds cmd/olmcat into a temporary directory and returns its
// path. The data-loss tests run the real binary: what they guard is what a
// user's shell sees (files on disk, exit codes, signals).
func buildBinary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "olmcat")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	return bin
}

// runBinary runs bin with args and returns stderr and the exit code. A
// command still running after two minutes (e.g. a serve that should have
// been refused) is killed and fails the test.
func runBinary(t *testing.T, bin string, args ...string) (string, int) {
	t.Helper()
	return runBinaryEnv(t, bin, nil, args...)
}

// runBinaryEnv is runBinary with the environment env (nil: this
// process's).
func runBinaryEnv(t *testing.T, bin string, env []string, args ...string) (string, int) {
	t.Helper()
	return runBinaryIn(t, bin, "", env, args...)
}

// runBinaryIn is runBinaryEnv in the working directory dir ("": this
// process's).
func runBinaryIn(t *testing.T, bin, dir string, env []string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "%v did not finish: %s", args, stderr.String())
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return stderr.String(), ee.ExitCode()
	}
	require.NoError(t, err)
	return stderr.String(), 0
}

// copyFile copies src to dst (mode 0644).
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
	require.NoError(t, os.WriteFile(dst, data, 0o644))
}

// copyTree copies the regular files under src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	for name := range snapshotTree(t, src) {
		copyFile(t, filepath.Join(src, filepath.FromSlash(name)), filepath.Join(dst, filepath.FromSlash(name)))
	}
}

// TestWritersNeverTouchInputs runs every command that writes with an
// output or report path that is, holds or lies inside an input (directly
// and through symlinks) and checks that each is refused as a usage error
// before anything is written, leaving the input byte-identical.
func TestWritersNeverTouchInputs(t *testing.T) {
	bin := buildBinary(t)
	for _, tc := range []struct {
		name string
		args func(work, r, db, link, catalog, existing string) []string
	}{
		{"migrate --force into the input's folder", func(work, r, db, link, catalog, existing string) []string {
			return []string{"migrate", "--force", db, r}
		}},
		{"migrate --force --verify into the input's folder", func(work, r, db, link, catalog, existing string) []string {
			return []string{"migrate", "--force", "--verify", db, r}
		}},
		{"migrate --force into an ancestor", func(work, r, db, link, catalog, existing string) []string {
			return []string{"migrate", "--force", db, work}
		}},
		{"migrate --force through a symlink", func(work, r, db, link, catalog, existing string) []string {
			return []string{"migrate", "--force", db, link}
		}},
		{"migrate onto the input", func(work, r, db, link, catalog, existing string) []string {
			return []string{"migrate", "--force", db, db}
		}},
		{"migrate --report onto the input", func(work, r, db, link, catalog, existing string) []string {
			return []string{"migrate", "--report", db, db, filepath.Join(work, "out")}
		}},
		{"migrate --report onto the input through a symlink", func(work, r, db, link, catalog, existing string) []string {
			return []string{"migrate", "--report", filepath.Join(link, "index.db"), db, filepath.Join(work, "out")}
		}},
		{"migrate --report inside the replaced output", func(work, r, db, link, catalog, existing string) []string {
			return []string{"migrate", "--force", "--report", filepath.Join(existing, "report.json"), db, existing}
		}},
		{"convert into its input", func(work, r, db, link, catalog, existing string) []string {
			return []string{"convert", catalog, filepath.Join(catalog, "sub")}
		}},
		{"convert --force onto an ancestor", func(work, r, db, link, catalog, existing string) []string {
			return []string{"convert", "--force", catalog, work}
		}},
		{"serve --cache-dir inside the catalog", func(work, r, db, link, catalog, existing string) []string {
			return []string{"serve", "-p", "0", "--cache-dir", filepath.Join(catalog, "cache"), catalog}
		}},
		{"build --oci-layout inside the catalog", func(work, r, db, link, catalog, existing string) []string {
			return []string{"build", "--push=false", "--oci-layout", filepath.Join(catalog, "oci"), catalog, "registry.example.com/ns/catalog:v1"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work := t.TempDir()
			r := filepath.Join(work, "r")
			db := filepath.Join(r, "index.db")
			copyFile(t, filepath.Join(legacyFixtures, "small-fbb", "index.db"), db)
			orig, err := os.ReadFile(db)
			require.NoError(t, err)
			link := filepath.Join(work, "link-to-r")
			require.NoError(t, os.Symlink(r, link))
			catalog := filepath.Join(work, "catalog")
			copyTree(t, filepath.Join(legacyFixtures, "small-fbb", "opm-migrate"), catalog)
			catalogTree := snapshotTree(t, catalog)
			existing := filepath.Join(work, "existing")
			require.NoError(t, os.MkdirAll(filepath.Join(existing, "old"), 0o755))

			args := tc.args(work, r, db, link, catalog, existing)
			if args[0] != "convert" && args[0] != "build" {
				args = append(args, "--no-deprecation-warning")
			}
			stderr, code := runBinary(t, bin, args...)
			assert.Equal(t, exitUsage, code, stderr)
			assert.Contains(t, stderr, "overlaps")
			got, err := os.ReadFile(db)
			require.NoError(t, err, "the input database must survive")
			assert.Equal(t, orig, got, "input database unchanged")
			assert.Equal(t, catalogTree, snapshotTree(t, catalog), "input catalog unchanged")
			assert.DirExists(t, filepath.Join(existing, "old"), "existing output kept")
			ents, err := os.ReadDir(r)
			require.NoError(t, err)
			assert.Len(t, ents, 1, "nothing written beside the input")
		})
	}
}

// TestKilledMigrationTempDirIsCleaned kills (SIGKILL, no chance to clean
// up) a migration while it writes, then checks that the next migration to
// the same output removes the abandoned temporary directory and says so.
func TestKilledMigrationTempDirIsCleaned(t *testing.T) {
	bin := buildBinary(t)
	cmd, _, outParent, out := startLargeMigration(t, bin)
	abandoned := waitForTempDir(t, outParent)
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	require.DirExists(t, abandoned, "SIGKILL leaves the temporary directory")

	// A second run to the same output while one is still running must not
	// touch the running one's directory; a run after the kill removes it.
	small := filepath.Join(legacyFixtures, "small-fbb", "index.db")
	report := filepath.Join(t.TempDir(), "report.json")
	stderr, code := runBinary(t, bin, "migrate", "--no-deprecation-warning", "--report", report, small, out)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "removed abandoned temporary directory "+abandoned)
	assert.NoDirExists(t, abandoned)
	data, err := os.ReadFile(report)
	require.NoError(t, err)
	assert.Contains(t, string(data), "abandoned-temp-dir")
	ents, err := os.ReadDir(outParent)
	require.NoError(t, err)
	require.Len(t, ents, 1, "only the output remains")
	assert.Equal(t, "catalog", ents[0].Name())
}

// TestRunningMigrationTempDirIsKept checks that a temporary directory of a
// migration that is still running is not taken for an abandoned one.
func TestRunningMigrationTempDirIsKept(t *testing.T) {
	bin := buildBinary(t)
	cmd, _, outParent, out := startLargeMigration(t, bin)
	running := waitForTempDir(t, outParent)
	small := filepath.Join(legacyFixtures, "small-fbb", "index.db")
	stderr, _ := runBinary(t, bin, "migrate", "--no-deprecation-warning", small, out)
	assert.NotContains(t, stderr, "removed abandoned")
	assert.NotContains(t, stderr, running)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	_ = cmd.Wait()
}

// startLargeMigration starts bin migrating a generated 1,200-bundle
// database to <outParent>/catalog (long enough to be caught writing) and
// returns the running command, its stderr, outParent and the output path.
func startLargeMigration(t *testing.T, bin string) (*exec.Cmd, *bytes.Buffer, string, string) {
	t.Helper()
	dir := t.TempDir()
	db := filepath.Join(dir, "index.db")
	require.NoError(t, dbbuild.Build(context.Background(), db, dbbuild.MaxLevel, manyBundles(t, 1200)))
	outParent := filepath.Join(dir, "out")
	require.NoError(t, os.Mkdir(outParent, 0o755))
	out := filepath.Join(outParent, "catalog")
	cmd := exec.Command(bin, "migrate", "-o", "yaml", db, out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	return cmd, &stderr, outParent, out
}

// waitForTempDir waits until parent holds a temporary directory with
// files in it and returns its path.
func waitForTempDir(t *testing.T, parent string) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		ents, _ := os.ReadDir(parent)
		for _, e := range ents {
			p := filepath.Join(parent, e.Name())
			if sub, _ := os.ReadDir(p); strings.Contains(e.Name(), ".tmp-") && len(sub) > 1 {
				return p
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	require.Fail(t, "the migration never started writing")
	return ""
}

// TestReportDestinationCheckedFirst gives migrate a report path that
// cannot be written and checks that it fails before writing the output,
// so that a re-run after fixing the path succeeds without --force.
func TestReportDestinationCheckedFirst(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	db := filepath.Join(legacyFixtures, "small-fbb", "index.db")
	out := filepath.Join(dir, "catalog")
	for _, report := range []string{
		filepath.Join(dir, "missing-dir", "report.json"),
		dir, // a directory
	} {
		stderr, code := runBinary(t, bin, "migrate", "--no-deprecation-warning", "--report", report, db, out)
		assert.NotEqual(t, exitOK, code, stderr)
		assert.Contains(t, stderr, "report")
		assert.NoDirExists(t, out, "nothing committed when the report cannot be written")
		assert.NotContains(t, stderr, "migrated ")
	}
	stderr, code := runBinary(t, bin, "migrate", "--no-deprecation-warning", "--report", filepath.Join(dir, "r.json"), db, out)
	require.Equal(t, exitOK, code, stderr)
	assert.FileExists(t, filepath.Join(dir, "r.json"))
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, ents, 2, "output and report, no temporary files")
}
