package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	healthgrpc "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/operator-catalog/olmcat/registry/api"
)

// requireServesFoo checks health and one answer of a server on the
// small-fbb catalog.
func requireServesFoo(t *testing.T, s *servedCmd) {
	t.Helper()
	ctx := context.Background()
	h, err := healthgrpc.NewHealthClient(s.conn).Check(ctx, &healthgrpc.HealthCheckRequest{})
	require.NoError(t, err)
	require.Equal(t, healthgrpc.HealthCheckResponse_SERVING, h.GetStatus())
	//lint:ignore SA1019 opm's images are probed with the deprecated RPC its clients still call
	b, err := api.NewRegistryClient(s.conn).GetBundleForChannel(ctx, &api.GetBundleInChannelRequest{PkgName: "foo", ChannelName: "beta"})
	require.NoError(t, err)
	require.Equal(t, "foo.v0.3.1", b.GetCsvName())
}

// TestOPMImageEntryPoints runs the CMD lines of the images opm built,
// with olmcat as /bin/opm: the sqlite index image's
// ["registry","serve","--database","/database/index.db"], and the
// declarative config image's builder step
// ["serve","/configs","--cache-dir=/tmp/cache","--cache-only"] followed by
// its CMD ["serve","/configs","--cache-dir=/tmp/cache"]. The in-image
// paths are replaced by the fixture's copy and "-p 0" picks a free port
// (a test cannot own 50051); every other argument is as in the image.
func TestOPMImageEntryPoints(t *testing.T) {
	t.Setenv(noDeprecationWarningEnv, "")
	t.Run("sqlite index image", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "index.db")
		copyFile(t, "../../fixtures/legacy/small-fbb/index.db", db)
		s := startServing(t, "registry", "serve", "--database", db, "-p", "0")
		requireServesFoo(t, s)
		require.NoError(t, s.stop(t))
		out := s.stderr.String()
		assert.Contains(t, out, "DEPRECATION NOTICE")
		assert.Contains(t, out, "olmcat migrate "+db+" "+strings.TrimSuffix(db, ".db")+"-catalog && olmcat serve "+strings.TrimSuffix(db, ".db")+"-catalog")
	})
	t.Run("declarative config image", func(t *testing.T) {
		tmp := t.TempDir()
		configs, cache := filepath.Join(tmp, "configs"), filepath.Join(tmp, "tmp", "cache")
		require.NoError(t, os.CopyFS(configs, os.DirFS("../../fixtures/legacy/small-fbb/opm-migrate")))
		_, stderr, code := runCLI(t, "serve", configs, "--cache-dir="+cache, "--cache-only")
		require.Equal(t, 0, code, stderr)
		require.Contains(t, stderr, "cache ready")
		s := startServing(t, "serve", configs, "--cache-dir="+cache, "-p", "0", "--pprof-addr=127.0.0.1:0")
		requireServesFoo(t, s)
		require.NoError(t, s.stop(t))
		require.Contains(t, s.stderr.String(), "catalog restored from cache")
	})
}

// TestServeCacheIntegrity: with --cache-dir (and without --cache-only) the
// cache must describe the catalog as it is, as in opm, whichever wrote it.
func TestServeCacheIntegrity(t *testing.T) {
	tmp := t.TempDir()
	configs, cache := filepath.Join(tmp, "configs"), filepath.Join(tmp, "cache")
	require.NoError(t, os.CopyFS(configs, os.DirFS("../../fixtures/legacy/small-fbb/opm-migrate")))

	_, stderr, code := runCLI(t, "serve", configs, "--cache-dir", cache, "-p", "0")
	require.Equal(t, exitInvalid, code)
	require.Contains(t, stderr, "integrity check failed")

	_, stderr, code = runCLI(t, "serve", configs, "--cache-enforce-integrity", "-p", "0")
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "--cache-dir must be specified with --cache-enforce-integrity")

	_, _, code = runCLI(t, "serve", configs, "--cache-dir", cache, "--cache-only")
	require.Equal(t, 0, code)
	require.NoError(t, os.WriteFile(filepath.Join(configs, "foo", "more.json"), []byte(`{"schema":"x.note","package":"foo"}`), 0o644))
	_, stderr, code = runCLI(t, "serve", configs, "--cache-dir", cache, "-p", "0")
	require.Equal(t, exitInvalid, code)
	require.Contains(t, stderr, "integrity check failed")
	// --cache-only rebuilds a stale cache (opm: "cache requires rebuild").
	_, _, code = runCLI(t, "serve", configs, "--cache-dir", cache, "--cache-only")
	require.Equal(t, 0, code)
	s := startServing(t, "serve", configs, "--cache-dir", cache, "-p", "0", "--pprof-addr=")
	requireServesFoo(t, s)
	require.NoError(t, s.stop(t))

	// A cache of opm's that does not describe the catalog (here an empty
	// pogreb database) is not served, as opm does not serve it.
	opmCache := filepath.Join(tmp, "opm-cache")
	require.NoError(t, os.MkdirAll(filepath.Join(opmCache, "pogreb.v1", "db"), 0o755))
	_, stderr, code = runCLI(t, "serve", configs, "--cache-dir="+opmCache, "-p", "0", "--pprof-addr=")
	require.Equal(t, exitInvalid, code)
	require.Contains(t, stderr, "integrity check failed")
}

var pprofOn = regexp.MustCompile(`pprof endpoint on ([^\s"]+)`)

// TestServePprof: --pprof-addr serves net/http/pprof and, with
// --pprof-capture-profiles, the start-up CPU profile once serving.
func TestServePprof(t *testing.T) {
	s := startServe(t, "../../fixtures/legacy/small-fbb/opm-migrate", "--pprof-addr", "127.0.0.1:0", "--pprof-capture-profiles")
	requireServesFoo(t, s)
	m := pprofOn.FindStringSubmatch(s.stderr.String())
	require.NotNil(t, m, s.stderr.String())
	for path, want := range map[string]int{"/debug/pprof/": 200, "/debug/pprof/startup/cpu": 200, "/debug/pprof/cmdline": 200} {
		resp, err := http.Get("http://" + m[1] + path)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, want, resp.StatusCode, path)
		require.NotEmpty(t, body, path)
	}
	require.NoError(t, s.stop(t))
}

// TestRegistryServeFlags: opm registry serve's flags and errors.
func TestRegistryServeFlags(t *testing.T) {
	db := filepath.Join(t.TempDir(), "index.db")
	copyFile(t, "../../fixtures/legacy/small-fbb/index.db", db)
	start := time.Now()
	_, stderr, code := runCLI(t, "registry", "serve", "-d", db, "-p", "0", "--timeout-seconds", "1", "--skip-migrate", "--debug")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "Timeout expired")
	require.GreaterOrEqual(t, time.Since(start), time.Second)

	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--timeout-seconds", "70000"}, exitUsage, `--timeout-seconds "70000"`},
		{[]string{"--timeout-seconds", "abc"}, exitUsage, `--timeout-seconds "abc"`},
		{[]string{"-p", "http"}, exitUsage, `--port "http"`},
		{[]string{"-d", os.DevNull}, exitInvalid, "is neither a regular file nor a catalog directory"},
		{[]string{"-d", filepath.Join(t.TempDir(), "nosuch.db")}, exitInvalid, "no such file or directory"},
		{[]string{"extra-arg"}, exitUsage, "accepts 0 arg"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			args := append([]string{"registry", "serve", "-p", "0", "-d", db}, tc.args...)
			_, stderr, code := runCLI(t, args...)
			require.Equal(t, tc.code, code, stderr)
			require.Contains(t, stderr, tc.msg)
		})
	}
}

// TestServeTerminationLog: the error that stops a server is written to
// an existing termination log (what Kubernetes shows as the container's
// termination message); a missing one is not created.
func TestServeTerminationLog(t *testing.T) {
	dir := t.TempDir()
	logFile := filepath.Join(dir, "termination-log")
	require.NoError(t, os.WriteFile(logFile, nil, 0o644))
	_, _, code := runCLI(t, "registry", "serve", "-d", filepath.Join(dir, "nosuch.db"), "-t", logFile)
	require.Equal(t, exitInvalid, code)
	data, err := os.ReadFile(logFile)
	require.NoError(t, err)
	require.Contains(t, string(data), "nosuch.db")

	missing := filepath.Join(dir, "absent-log")
	_, _, code = runCLI(t, "serve", filepath.Join(dir, "nosuch"), "-t", missing)
	require.Equal(t, exitInvalid, code)
	require.NoFileExists(t, missing)

	// Not a container's main process (PID 1): an existing termination
	// log does not keep serve up; a catalog that does not load exits.
	bad := filepath.Join(dir, "bad")
	require.NoError(t, os.MkdirAll(filepath.Join(bad, "pkg"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bad, "pkg", "catalog.json"), []byte(`{"schema":"olm.package","name":"pkg","defaultChannel":"missing"}`), 0o644))
	_, stderr, code := runCLI(t, "serve", bad, "-p", "0", "-t", logFile)
	require.Equal(t, exitInvalid, code, stderr)
	assert.Contains(t, stderr, `default channel "missing" not found`)
	data, err = os.ReadFile(logFile)
	require.NoError(t, err)
	assert.Contains(t, string(data), `default channel "missing" not found`)
}
