package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
)

// TestConcurrentAddsAllLand runs 8 real olmcat add processes at once
// into one catalog, each adding one bundle of the same package, and
// checks that every bundle lands: the catalog is byte for byte the one
// the same adds give one after the other. Without the write lock each
// add read the catalog before the others wrote it, and the last commit
// won (issue 25, item 1: 8 of 8 runs lost bundles).
func TestConcurrentAddsAllLand(t *testing.T) {
	bin := buildBinary(t)
	for _, tc := range []struct {
		name    string
		base    []string // bundles added first, one at a time
		bundles []string // then added concurrently, one per process
	}{
		{
			name:    "existing package",
			base:    []string{"kiali/1.24.0"},
			bundles: []string{"kiali/1.25.0", "kiali/1.26.0", "kiali/1.27.0", "kiali/1.28.0", "kiali/1.29.0", "kiali/1.30.0", "kiali/1.31.0", "kiali/1.32.0"},
		},
		{
			name: "new package",
			bundles: []string{"istio-workspace-operator/0.0.6", "istio-workspace-operator/0.0.7", "istio-workspace-operator/0.0.8", "istio-workspace-operator/0.0.9",
				"istio-workspace-operator/0.0.10", "istio-workspace-operator/0.1.0", "istio-workspace-operator/0.2.0", "istio-workspace-operator/0.3.0"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(noDeprecationWarningEnv, "")
			bundle := func(b string) string { return filepath.Join(fixtureBundles, "community", b) }
			newCatalog := func() string {
				cat := filepath.Join(t.TempDir(), "catalog")
				copyTree(t, "../../fixtures/legacy/small-fbb/opm-migrate", cat)
				for _, b := range tc.base {
					stderr, code := runBinary(t, bin, "add", cat, bundle(b), "--mode", "semver")
					require.Equal(t, exitOK, code, stderr)
				}
				return cat
			}
			serial := newCatalog()
			start := time.Now()
			for _, b := range tc.bundles {
				stderr, code := runBinary(t, bin, "add", serial, bundle(b), "--mode", "semver")
				require.Equal(t, exitOK, code, stderr)
			}
			t.Logf("%d adds one after the other took %v", len(tc.bundles), time.Since(start))
			concurrent := newCatalog()
			start = time.Now()
			var wg sync.WaitGroup
			stderrs, codes := make([]bytes.Buffer, len(tc.bundles)), make([]int, len(tc.bundles))
			for i, b := range tc.bundles {
				cmd := exec.Command(bin, "add", concurrent, bundle(b), "--mode", "semver")
				cmd.Stderr = &stderrs[i]
				require.NoError(t, cmd.Start())
				wg.Add(1)
				go func() {
					defer wg.Done()
					_ = cmd.Wait()
					codes[i] = cmd.ProcessState.ExitCode()
				}()
			}
			wg.Wait()
			t.Logf("%d concurrent adds took %v", len(tc.bundles), time.Since(start))
			for i := range tc.bundles {
				require.Equal(t, exitOK, codes[i], stderrs[i].String())
			}
			require.Equal(t, bundleNames(t, serial), bundleNames(t, concurrent), "every bundle lands")
			assert.True(t, reflect.DeepEqual(snapshotTree(t, serial), snapshotTree(t, concurrent)), "the catalog is byte for byte the one of the adds one after the other")
			ents, err := os.ReadDir(filepath.Dir(concurrent))
			require.NoError(t, err)
			assert.Len(t, ents, 1, "only the catalog is left beside it")
		})
	}
}

// bundleNames lists the bundles of the catalog in dir.
func bundleNames(t *testing.T, dir string) []string {
	t.Helper()
	cfg, err := declcfg.LoadDir(context.Background(), dir)
	require.NoError(t, err)
	var names []string
	for _, b := range cfg.Bundles {
		names = append(names, b.Name)
	}
	slices.Sort(names)
	return names
}

// TestWaitLock: while a writer holds an output's lock (a migration,
// stopped with SIGSTOP once it has the lock), a second writer with
// --wait-lock 0 fails at once and one with a short --wait-lock after it
// (and one note), exit 1, naming the holder's pid and writing nothing; a
// negative --wait-lock is a usage error; a writer that
// waits says once for whom, and runs as soon as the holder is killed
// with SIGKILL (the kernel drops its lock), on what it left.
func TestWaitLock(t *testing.T) {
	bin := buildBinary(t)
	holder, _, outParent, out := startLargeMigration(t, bin)
	t.Cleanup(func() { _ = holder.Process.Kill(); _ = holder.Wait() })
	lockFile := filepath.Join(outParent, ".catalog.olmcat-lock")
	pid := strconv.Itoa(holder.Process.Pid)
	require.Eventually(t, func() bool {
		data, _ := os.ReadFile(lockFile)
		return string(data) == "pid "+pid+"\n"
	}, time.Minute, time.Millisecond, "the migration takes the lock first")
	waitForTempDir(t, outParent)
	require.NoError(t, holder.Process.Signal(syscall.SIGSTOP))
	small := filepath.Join(legacyFixtures, "small-fbb", "index.db")

	for _, wait := range []time.Duration{0, 300 * time.Millisecond} {
		start := time.Now()
		stderr, code := runBinary(t, bin, "migrate", "--wait-lock", wait.String(), small, out)
		assert.Equal(t, exitInvalid, code, stderr)
		note := ""
		if wait > 0 {
			note = "waiting for process " + pid + " (lock file " + lockFile + "), which is writing " + out + " (--wait-lock bounds the wait)\n"
		}
		assert.Equal(t, note+"Error: "+out+" is being written by process "+pid+" (lock file "+lockFile+
			"); nothing was written (rerun when it is done, or with a longer --wait-lock)\n", stderr)
		assert.GreaterOrEqual(t, time.Since(start), wait)
		assert.NoDirExists(t, out)
	}
	stderr, code := runBinary(t, bin, "migrate", "--wait-lock", "-1s", small, out)
	assert.Equal(t, exitUsage, code, stderr)

	waiter := exec.Command(bin, "migrate", small, out)
	var waiterErr lockedBuffer
	waiter.Stderr = &waiterErr
	require.NoError(t, waiter.Start())
	note := "waiting for process " + pid + " (lock file " + lockFile + "), which is writing " + out + " (--wait-lock bounds the wait)\n"
	require.Eventually(t, func() bool { return strings.Contains(waiterErr.String(), note) }, time.Minute, time.Millisecond)
	require.NoError(t, holder.Process.Signal(syscall.SIGKILL))
	require.NoError(t, waiter.Wait(), waiterErr.String())
	assert.Equal(t, 1, strings.Count(waiterErr.String(), "waiting for"), "one note")
	assert.Contains(t, waiterErr.String(), "removed abandoned temporary directory", "the waiter runs on what the killed holder left")
	assert.Equal(t, bundleNames(t, "../../fixtures/legacy/small-fbb/opm-migrate"), bundleNames(t, out))
	ents, err := os.ReadDir(outParent)
	require.NoError(t, err)
	require.Len(t, ents, 1, "only the output is left: no temporary directory, no lock file")
}

// TestAddReadOnlyParent: add only changes folders inside the catalog, so
// a catalog whose parent directory cannot be written (owned by another
// user here: the add runs as nobody when the tests run as root) takes the
// bundle like any other, its lock and temporary directory inside the
// catalog, hidden from loaders, and gone afterwards. It used to fail
// after all the work with "mkdir .../.catalog.tmp-N: permission denied"
// (issue 25, item 10).
func TestAddReadOnlyParent(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	parent, home := filepath.Join(dir, "parent"), filepath.Join(dir, "home")
	cat := filepath.Join(parent, "catalog")
	copyTree(t, "../../fixtures/legacy/small-fbb/opm-migrate", cat)
	// The bundle is copied beside it: the clone the tests run in may sit
	// in a directory the unprivileged user cannot enter.
	bundle := filepath.Join(dir, "bundle")
	copyTree(t, filepath.Join(fixtureBundles, "community/kiali/1.24.0"), bundle)
	require.NoError(t, os.Mkdir(home, 0o755))
	run := exec.Command(bin, "add", cat, bundle, "--mode", "semver")
	run.Env = append(os.Environ(), "HOME="+home, "TMPDIR="+home, "XDG_CACHE_HOME="+home, noDeprecationWarningEnv+"=1")
	if os.Geteuid() == 0 {
		const nobody = 65534
		run.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		for _, d := range []string{filepath.Dir(dir), dir, filepath.Dir(filepath.Dir(bin)), filepath.Dir(bin)} {
			require.NoError(t, os.Chmod(d, 0o755))
		}
		for _, d := range []string{cat, home} {
			require.NoError(t, filepath.WalkDir(d, func(p string, _ os.DirEntry, err error) error {
				if err != nil {
					return err
				}
				return os.Lchown(p, nobody, nobody)
			}))
		}
	} else {
		require.NoError(t, os.Chmod(parent, 0o555))
		t.Cleanup(func() { _ = os.Chmod(parent, 0o755) })
	}
	var stderr bytes.Buffer
	run.Stderr = &stderr
	require.NoError(t, run.Run(), stderr.String())
	assert.Contains(t, stderr.String(), "added 1 bundle(s)")
	assert.Contains(t, bundleNames(t, cat), "kiali-operator.v1.24.0")
	ents, err := os.ReadDir(parent)
	require.NoError(t, err)
	assert.Len(t, ents, 1, "nothing written beside the catalog")
	left, err := filepath.Glob(filepath.Join(cat, ".*"))
	require.NoError(t, err)
	assert.Empty(t, left, "no temporary directory or lock file left in the catalog")
}

// TestEveryWriterWaitsForTheLock: every command that writes a directory
// output has --wait-lock. A command with --force (it replaces an output)
// is one, unless it writes a single file, listed here with that file.
func TestEveryWriterWaitsForTheLock(t *testing.T) {
	singleFile := map[string]string{
		"olmcat parity":       "--report-html",
		"olmcat bundle local": "<root>/<name>.tar.gz",
	}
	writers := []string{"olmcat add"}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Flags().Lookup("force") != nil && singleFile[c.CommandPath()] == "" {
			writers = append(writers, c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd())
	for _, w := range []string{"olmcat migrate", "olmcat convert", "olmcat unpack", "olmcat index add", "olmcat registry add", "olmcat build", "olmcat alpha bundle build"} {
		assert.Contains(t, writers, w, "a writer that the walk must find")
	}
	for _, w := range writers {
		cmd, _, err := newRootCmd().Find(strings.Fields(w)[1:])
		require.NoError(t, err)
		assert.NotNil(t, cmd.Flags().Lookup("wait-lock"), "%s writes an output and has no --wait-lock", w)
	}
}
