package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"

	"github.com/operator-catalog/olmcat/registry/healthprobe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSlimBuild runs the slim build (the binary of the images and of the
// unpack Job) as a process: it has exactly the serving and the Job's
// bundle commands (olmcat's and OLM's), refuses a sqlite index with the
// commands that serve it instead, and answers to its images' other two
// names: opm with the same tree, grpc_health_probe as the probe.
// TestBuildCommand serves an image's /configs with it.
func TestSlimBuild(t *testing.T) {
	if runtime.GOOS != "linux" || (testing.Short() && os.Getenv("OLMCAT_TEST_IMAGE_BINARIES") == "") {
		t.Skip("builds the slim linux binary; make test runs it with make build-images' binaries")
	}
	bin := crossBuild(t, t.TempDir(), runtime.GOARCH)
	dir := t.TempDir()
	for _, name := range []string{"opm", "grpc_health_probe"} {
		require.NoError(t, os.Symlink(bin, filepath.Join(dir, name)))
	}
	runAs := func(exe string, args ...string) (string, int) {
		t.Helper()
		out, err := exec.Command(exe, args...).CombinedOutput()
		if err != nil {
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "run %v", args)
			return string(out), exit.ExitCode()
		}
		return string(out), 0
	}
	run := func(args ...string) (string, int) { t.Helper(); return runAs(bin, args...) }
	commands := func(help string) []string {
		t.Helper()
		var names []string
		for _, m := range regexp.MustCompile(`(?m)^  (\w+)\s{2,}`).FindAllStringSubmatch(help, -1) {
			names = append(names, m[1])
		}
		return names
	}

	help, code := run("--help")
	require.Equal(t, 0, code, help)
	assert.Equal(t, []string{"alpha", "bundle", "completion", "help", "serve", "version"}, commands(help))
	help, code = run("bundle", "--help")
	require.Equal(t, 0, code, help)
	assert.Equal(t, []string{"copy", "extract"}, commands(help))
	help, code = runAs(filepath.Join(dir, "opm"), "alpha", "bundle", "--help")
	require.Equal(t, 0, code, help)
	assert.Equal(t, []string{"extract"}, commands(help))
	assert.Contains(t, help, "  opm alpha bundle [command]")
	out, code := runAs(filepath.Join(dir, "grpc_health_probe"), "-addr=127.0.0.1:1", "-connect-timeout=100ms")
	assert.Equal(t, int(healthprobe.CodeConnectionFailure), code, out)
	assert.Equal(t, "timeout: failed to connect service \"127.0.0.1:1\" within 100ms\n", out)

	out, code = run("migrate", "x", "y")
	assert.Equal(t, exitUsage, code, out)

	db := "../../fixtures/legacy/opm-manifests/index.db"
	out, code = run("serve", db, "-p", "0")
	assert.Equal(t, exitInvalid, code, out)
	assert.Contains(t, out, "a legacy sqlite index, and this build has no sqlite backend")
	assert.Contains(t, out, "olmcat migrate "+db)
	assert.NotContains(t, out, "listening", "refused before the port is bound")
}
