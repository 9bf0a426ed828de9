package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// opmBinary is the real opm v1.73.0 (make opm-bin builds it):
// $OLMCAT_TEST_OPM, which must then exist, else the default place
// scripts/install-opm.sh puts it; without either the test is skipped.
func opmBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("OLMCAT_TEST_OPM"); p != "" {
		_, err := os.Stat(p)
		require.NoError(t, err, "OLMCAT_TEST_OPM names no opm binary (make opm-bin builds it)")
		return p
	}
	dir, err := os.UserCacheDir()
	require.NoError(t, err)
	p := filepath.Join(dir, "opm-v1.73.0", "opm")
	if _, err := os.Stat(p); err != nil {
		t.Skip("no opm v1.73.0 binary: make opm-bin builds it")
	}
	return p
}

// startOPM runs the real `opm serve args...` on a free port until the test
// ends, waits for its "serving registry" log line and returns its address
// and its log.
func startOPM(t *testing.T, opm string, args ...string) (string, *lockedBuffer) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, opm, append(append([]string{"serve"}, args...), "-p", strconv.Itoa(port), "--pprof-addr=")...)
	cmd.Env = opmEnv(t)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	require.Eventually(t, func() bool { return strings.Contains(stderr.String(), "serving registry") }, 60*time.Second, 20*time.Millisecond,
		"opm not serving: %s", stderr.String())
	return fmt.Sprintf("127.0.0.1:%d", port), &stderr
}

// runOPM runs the real opm to its end and returns its log.
func runOPM(t *testing.T, opm string, args ...string) string {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(opm, args...)
	cmd.Env = opmEnv(t)
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	return stderr.String()
}

// opmEnv is the environment of a real opm run by a test: its temporary
// files (serve's cache without --cache-dir, which opm removes only on a
// graceful exit, not when the test kills it) go to a directory the test
// removes.
func opmEnv(t *testing.T) []string {
	t.Helper()
	return append(os.Environ(), "TMPDIR="+t.TempDir())
}

// treeDigest digests a directory tree: every path, mode, modification
// time and content (a cache that is rebuilt or touched changes it).
func treeDigest(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %v %d\n", p, info.Mode(), info.ModTime().UnixNano())
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(data)
		}
		return nil
	}))
	return fmt.Sprintf("%x", h.Sum(nil))
}

// cacheCatalogs are the catalogs the cache tests run on: every fixture
// catalog, the deprecations test catalog (YAML) and one with blobs of
// other schemas (which opm's cache keeps under metas/).
func cacheCatalogs(t *testing.T) map[string]string {
	t.Helper()
	dirs, err := filepath.Glob("../../fixtures/legacy/*/opm-migrate")
	require.NoError(t, err)
	out := map[string]string{"deprecations": "../../registry/declcfgquery/testdata/deprecations"}
	for _, d := range dirs {
		out[filepath.Base(filepath.Dir(d))] = d
	}
	custom := filepath.Join(t.TempDir(), "custom")
	require.NoError(t, os.CopyFS(custom, os.DirFS("../../fixtures/legacy/small-fbb-deprecated/opm-migrate")))
	require.NoError(t, os.WriteFile(filepath.Join(custom, "custom.json"),
		[]byte(`{"schema":"x.custom","package":"foo","n":1e21,"s":"<a>&"}`+"\n"+`{"schema":"x.global","list":[1,2.5]}`+"\n"), 0o644))
	out["custom-schemas"] = custom
	return out
}

// TestOPMStartsFromOlmcatCache: the serve cache olmcat writes (what olmcat
// build ships at /tmp/cache) is one the real opm v1.73 serve --cache-dir
// accepts with its integrity check (its default there) and starts from
// without rebuilding, leaving it untouched, and opm then answers as
// olmcat serves the catalog (issue 24 item 2).
func TestOPMStartsFromOlmcatCache(t *testing.T) {
	opm := opmBinary(t)
	for name, src := range cacheCatalogs(t) {
		t.Run(name, func(t *testing.T) {
			tmp := t.TempDir()
			catalog, cache := filepath.Join(tmp, "configs"), filepath.Join(tmp, "cache")
			require.NoError(t, os.CopyFS(catalog, os.DirFS(src)))
			_, stderr, code := runCLI(t, "serve", catalog, "--cache-dir", cache, "--cache-only")
			require.Equal(t, 0, code, stderr)
			before := treeDigest(t, cache)

			addr, log := startOPM(t, opm, catalog, "--cache-dir", cache, "--cache-enforce-integrity")
			require.Contains(t, log.String(), `msg="found existing cache contents" backend=json`)
			require.NotContains(t, log.String(), "building cache")
			require.Equal(t, before, treeDigest(t, cache), "opm left the cache as it was")
			_, stderr, code = runCLI(t, "parity", "grpc://"+addr, catalog, "--left-kind", "declcfg", "--strict")
			require.Equal(t, 0, code, stderr)

			// The files are opm's own, byte for byte: opm's JSON cache of
			// the same catalog (opm keeps the format it finds).
			own := filepath.Join(tmp, "opm-cache")
			require.NoError(t, os.MkdirAll(filepath.Join(own, "cache"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(own, "digest"), nil, 0o644))
			runOPM(t, opm, "serve", catalog, "--cache-dir", own, "--cache-only", "--pprof-addr=")
			requireSameCacheFiles(t, filepath.Join(own, "cache"), filepath.Join(cache, "cache"))
		})
	}
}

// requireSameCacheFiles checks that two opm JSON caches hold the same
// files with the same bytes, but for the package index's description and
// icon, which opm stores and never serves (olmcat's index does not keep
// them).
func requireSameCacheFiles(t *testing.T, want, got string) {
	t.Helper()
	files := func(dir string) map[string]string {
		out := map[string]string{}
		require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(dir, p)
			if rel == "packages.json" {
				var pkgs map[string]map[string]any
				require.NoError(t, json.Unmarshal(data, &pkgs))
				for _, p := range pkgs {
					delete(p, "description")
					delete(p, "icon")
				}
				data, _ = json.Marshal(pkgs)
			}
			out[rel] = string(data)
			return err
		}))
		return out
	}
	w, g := files(want), files(got)
	require.Equal(t, len(w), len(g))
	for name, data := range w {
		require.Equal(t, data, g[name], name)
	}
}

// TestServeStartsFromOPMCache: olmcat serve --cache-dir starts from the
// cache the real opm serve --cache-only wrote, in either format (pogreb.v1,
// what opm writes into an empty directory, and its JSON cache), with the
// integrity check on and without reading the catalog ("catalog loaded" is
// the log of a build from the files), leaves it untouched, and answers
// exactly as opm serving the catalog does (issue 24 item 2).
func TestServeStartsFromOPMCache(t *testing.T) {
	opm := opmBinary(t)
	for name, src := range cacheCatalogs(t) {
		for _, format := range []string{"pogreb.v1", "json"} {
			t.Run(name+"/"+format, func(t *testing.T) {
				tmp := t.TempDir()
				catalog, cache := filepath.Join(tmp, "configs"), filepath.Join(tmp, "cache")
				require.NoError(t, os.CopyFS(catalog, os.DirFS(src)))
				if format == "json" { // opm keeps the format it finds
					require.NoError(t, os.MkdirAll(filepath.Join(cache, "cache"), 0o755))
					require.NoError(t, os.WriteFile(filepath.Join(cache, "digest"), nil, 0o644))
				}
				runOPM(t, opm, "serve", catalog, "--cache-dir", cache, "--cache-only", "--pprof-addr=")
				before := treeDigest(t, cache)

				s := startServing(t, "serve", catalog, "--cache-dir", cache, "-p", "0", "--pprof-addr=")
				log := s.stderr.String()
				require.Contains(t, log, "catalog restored from cache")
				require.Contains(t, log, "format="+format)
				require.NotContains(t, log, "catalog loaded")
				require.Equal(t, before, treeDigest(t, cache), "olmcat left opm's cache as it was")

				opmAddr, _ := startOPM(t, opm, catalog)
				olmcatAddr := strings.Replace(servingOn.FindStringSubmatch(log)[1], "[::]", "127.0.0.1", 1)
				stdout, stderr, code := runCLI(t, "parity", "grpc://"+olmcatAddr, "grpc://"+opmAddr,
					"--left-kind", "declcfg", "--right-kind", "declcfg", "--strict")
				// The report names the call that differed and how.
				require.Equal(t, 0, code, "%s\n%s", stdout, stderr)
			})
		}
	}
}
