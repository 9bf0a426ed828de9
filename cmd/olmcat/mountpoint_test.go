package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// mountTmpfs mounts a fresh tmpfs at a new directory and unmounts it when
// the test ends. Mounting needs CAP_SYS_ADMIN: without it the test is
// skipped, saying so.
func mountTmpfs(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mnt")
	require.NoError(t, os.Mkdir(dir, 0o755))
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64m"); err != nil {
		t.Skipf("cannot mount a tmpfs to test writing into a mount point (needs root or CAP_SYS_ADMIN): %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// bindMount bind-mounts a new directory of the test's file system onto
// itself: a mount point on the same device as its parent.
func bindMount(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bind")
	require.NoError(t, os.Mkdir(dir, 0o755))
	if err := syscall.Mount(dir, dir, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("cannot bind-mount to test writing into a mount point (needs root or CAP_SYS_ADMIN): %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// requireNoTemps fails if dir or its parent hold olmcat temporary
// directories.
func requireNoTemps(t *testing.T, dir string) {
	t.Helper()
	for _, where := range []string{dir, filepath.Dir(dir)} {
		left, _ := filepath.Glob(filepath.Join(where, ".*.tmp-*"))
		require.Empty(t, left, "temporary directories left in %s", where)
	}
}

// TestWriteIntoMountPoint: a mount point (a container or Kubernetes
// volume) cannot be renamed, so convert, migrate, unpack and add write
// inside it: an empty one, one replaced with --force, one with only
// lost+found, on another file system (tmpfs) and on the same one (bind
// mount). The result equals what a plain directory gets.
func TestWriteIntoMountPoint(t *testing.T) {
	small := "../../fixtures/legacy/small-fbb/opm-migrate"
	want := filepath.Join(t.TempDir(), "want")
	_, stderr, code := runCLI(t, "convert", "-q", small, want)
	require.Equal(t, 0, code, stderr)
	db := filepath.Join(legacyFixtures, "opm-manifests", "index.db")
	wantDB := filepath.Join(t.TempDir(), "want")
	_, stderr, code = runCLI(t, "migrate", "--no-deprecation-warning", db, wantDB)
	require.Equal(t, 0, code, stderr)
	for name, mount := range map[string]func(*testing.T) string{"tmpfs": mountTmpfs, "bind": bindMount} {
		t.Run(name, func(t *testing.T) {
			mnt := mount(t)
			// Empty (but for lost+found, which stays).
			require.NoError(t, os.Mkdir(filepath.Join(mnt, "lost+found"), 0o700))
			_, stderr, code := runCLI(t, "convert", "-q", small, mnt)
			require.Equal(t, 0, code, stderr)
			require.NoError(t, os.Remove(filepath.Join(mnt, "lost+found")))
			require.Equal(t, snapshotTree(t, want), snapshotTree(t, mnt))
			requireNoTemps(t, mnt)

			// Not empty: refused without --force, replaced with it.
			_, stderr, code = runCLI(t, "convert", "-q", "--layout", "objects", small, mnt)
			require.Equal(t, exitUsage, code, stderr)
			require.Contains(t, stderr, "exists and is not empty (use --force to replace it)")
			_, stderr, code = runCLI(t, "migrate", "--no-deprecation-warning", "--force", db, mnt)
			require.Equal(t, 0, code, stderr)
			require.True(t, equalTrees(snapshotTree(t, wantDB), snapshotTree(t, mnt)), "migrate into the mount point")
			requireNoTemps(t, mnt)
			_, stderr, code = runCLI(t, "convert", "-q", "--force", small, mnt)
			require.Equal(t, 0, code, stderr)
			require.Equal(t, snapshotTree(t, want), snapshotTree(t, mnt))

			// A catalog that is a mount point gets bundles added.
			_, stderr, code = runCLI(t, "add", mnt, filepath.Join(fixtureBundles, "community/couchdb-operator", "1.4.2"))
			require.Equal(t, 0, code, stderr)
			require.FileExists(t, filepath.Join(mnt, "couchdb-operator", "catalog.json"))
			_, stderr, code = runCLI(t, "validate", mnt)
			require.Equal(t, 0, code, stderr)
			requireNoTemps(t, mnt)
		})
	}
}
