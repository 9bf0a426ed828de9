package main

import (
	"archive/tar"
	"debug/elf"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
	"github.com/operator-catalog/olmcat/internal/testutil/kubetest"
)

// toolImageBuild builds olmcat's own image of the slim binaries for
// linux/amd64 and linux/arm64 and pushes it to reg: its reference and
// build-tool-image's arguments.
func toolImageBuild(t *testing.T, reg *imagetest.Registry, flags []string) (string, []string) {
	t.Helper()
	bins := t.TempDir()
	amd64, arm64 := crossBuild(t, bins, "amd64"), crossBuild(t, bins, "arm64")
	ref := reg.Host + "/tools/olmcat:v1"
	args := append([]string{"build-tool-image", ref, "--platform", "linux/amd64,linux/arm64",
		"--binary", "linux/amd64=" + amd64, "--binary", "linux/arm64=" + arm64}, flags...)
	return ref, args
}

// layerEntries maps each entry of img's layers to its header.
func layerEntries(t *testing.T, img v1.Image) map[string]*tar.Header {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	out := map[string]*tar.Header{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err)
		out[strings.TrimSuffix(hdr.Name, "/")] = hdr
	}
}

// TestBuildToolImage: olmcat's own image is reproducible, holds each
// platform's binary under its three names (hard links to one file) and a
// world-writable /tmp, and has opm's image config: entrypoint /bin/opm,
// user 1001, PATH.
func TestBuildToolImage(t *testing.T) {
	if testing.Short() && os.Getenv("OLMCAT_TEST_IMAGE_BINARIES") == "" {
		t.Skip("cross-compiles olmcat for two platforms; make test runs it with make build-images' binaries")
	}
	reg := imagetest.New(t)
	tmp, flags := imageTestEnv(t)
	ref, args := toolImageBuild(t, reg, flags)
	stdout, stderr, code := runCLI(t, args...)
	require.Equal(t, 0, code, stderr)
	digest := strings.TrimSpace(stdout)
	require.True(t, strings.HasPrefix(digest, reg.Host+"/tools/olmcat@sha256:"), digest)
	stdout, stderr, code = runCLI(t, args...)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, digest, strings.TrimSpace(stdout), "same binaries, same digest")
	layout := filepath.Join(t.TempDir(), "oci")
	stdout, stderr, code = runCLI(t, append(args, "--push=false", "--oci-layout", layout)...)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, digest, strings.TrimSpace(stdout), "the layout holds the pushed index")

	for _, tc := range []struct {
		arch    string
		machine elf.Machine
	}{{"amd64", elf.EM_X86_64}, {"arm64", elf.EM_AARCH64}} {
		t.Run(tc.arch, func(t *testing.T) {
			pulled, root := pullImage(t, ref, v1.Platform{OS: "linux", Architecture: tc.arch}, "bin")
			cf, err := pulled.Image.ConfigFile()
			require.NoError(t, err)
			assert.Equal(t, tc.arch, cf.Architecture)
			assert.Equal(t, []string{image.OPMPath}, cf.Config.Entrypoint)
			assert.Empty(t, cf.Config.Cmd)
			assert.Equal(t, "1001", cf.Config.User)
			assert.Equal(t, []string{"PATH=" + image.SearchPath}, cf.Config.Env)
			entries := layerEntries(t, pulled.Image)
			require.Contains(t, entries, "bin/olmcat")
			assert.Equal(t, byte(tar.TypeReg), entries["bin/olmcat"].Typeflag)
			assert.Equal(t, int64(0o755), entries["bin/olmcat"].Mode)
			for _, name := range []string{"bin/opm", "bin/grpc_health_probe"} {
				require.Contains(t, entries, name)
				assert.Equal(t, byte(tar.TypeLink), entries[name].Typeflag, name)
				assert.Equal(t, "bin/olmcat", entries[name].Linkname, name)
			}
			require.Contains(t, entries, "tmp")
			assert.Equal(t, int64(0o1777), entries["tmp"].Mode)
			assert.Len(t, entries, 5, "bin, its three names and tmp")
			f, err := elf.Open(filepath.Join(root, "bin", "olmcat"))
			require.NoError(t, err)
			defer f.Close()
			assert.Equal(t, tc.machine, f.Machine)
			olmcat, err := os.Stat(filepath.Join(root, "bin", "olmcat"))
			require.NoError(t, err)
			for _, name := range []string{"opm", "grpc_health_probe"} {
				st, err := os.Stat(filepath.Join(root, "bin", name))
				require.NoError(t, err)
				assert.True(t, os.SameFile(olmcat, st), "%s is a link to /bin/olmcat", name)
			}
		})
	}
	assertNoImageTemp(t, tmp)
}

// podNetScript runs a server the way a pod's container does, alone in a
// network namespace with loopback only (so it binds :50051 as OLM's pods
// do), and probes it as OLM's three probes do until it is Ready.
const podNetScript = `ip link set lo up || exit 90
"$@" 2>"$SERVER_LOG" &
pid=$!
rc=1
for i in $(seq 300); do
	if "$PROBE" -addr=:50051 -rpc-timeout=5s >"$PROBE_LOG" 2>&1; then rc=0; break; fi
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
done
kill -TERM $pid 2>/dev/null
wait $pid
exit $rc
`

// runInPodNet runs server (an argv) as podNetScript says, with probe as
// the grpc_health_probe, and returns the probe's exit code and output and
// the server's stderr. Without unprivileged network namespaces the test
// is skipped, unless TEST_ASSETS_REQUIRED is set (make test).
func runInPodNet(t *testing.T, probe string, server ...string) (int, string, string) {
	t.Helper()
	if err := exec.Command("unshare", "-rn", "ip", "link", "set", "lo", "up").Run(); err != nil {
		if os.Getenv(kubetest.EnvRequired) == "" {
			t.Skipf("needs a network namespace of its own (unshare -rn, ip): %v", err)
		}
		require.NoError(t, err, "unshare -rn ip link set lo up")
	}
	logs := t.TempDir()
	serverLog, probeLog := filepath.Join(logs, "server"), filepath.Join(logs, "probe")
	cmd := exec.Command("unshare", append([]string{"-rn", "sh", "-c", podNetScript, "pod"}, server...)...)
	cmd.Env = append(os.Environ(), "SERVER_LOG="+serverLog, "PROBE_LOG="+probeLog, "PROBE="+probe)
	code := 0
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit)
		code = exit.ExitCode()
	}
	probeOut, err := os.ReadFile(probeLog)
	require.NoError(t, err)
	serverErr, err := os.ReadFile(serverLog)
	require.NoError(t, err)
	return code, string(probeOut), string(serverErr)
}

// runDockerfile runs a generated Dockerfile on olmcat's extracted image
// (opm is its /bin/opm, probe its /bin/grpc_health_probe) as a build and
// a pod would: the builder's ADD (from the build context ctxDir) and exec
// form RUN, then the final stage's ENTRYPOINT and CMD in a pod's network,
// Ready through the probe. The COPY --from steps are the identity here:
// both stages are the same root. It returns the server's stderr.
func runDockerfile(t *testing.T, dockerfile, ctxDir, opm, probe string) string {
	t.Helper()
	data, err := os.ReadFile(dockerfile)
	require.NoError(t, err)
	step := func(kw string) []string {
		m := regexp.MustCompile(`(?m)^` + kw + ` (\[.*\])$`).FindSubmatch(data)
		require.NotNil(t, m, "%s in %s", kw, data)
		var argv []string
		require.NoError(t, json.Unmarshal(m[1], &argv))
		return argv
	}
	add := regexp.MustCompile(`(?m)^ADD (\S+) /configs$`).FindSubmatch(data)
	require.NotNil(t, add, "ADD in %s", data)
	root := t.TempDir()
	copyTree(t, filepath.Join(ctxDir, string(add[1])), filepath.Join(root, "configs"))
	require.NoError(t, os.Mkdir(filepath.Join(root, "bin"), 0o755))
	require.NoError(t, os.Link(opm, filepath.Join(root, "bin", "opm")))
	run := inRoot(root, step("RUN"))
	out, err := exec.Command(run[0], run[1:]...).CombinedOutput()
	require.NoError(t, err, "RUN %v: %s", run, out)
	code, probeOut, serverErr := runInPodNet(t, probe, inRoot(root, append(step("ENTRYPOINT"), step("CMD")...))...)
	require.Equal(t, 0, code, "probe: %s\nserver: %s", probeOut, serverErr)
	assert.Equal(t, "status: SERVING\n", probeOut)
	return serverErr
}

// inRoot maps the image paths in argv to root (an extracted image).
func inRoot(root string, argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		for _, p := range []string{"/bin/", "/configs", "/tmp/cache"} {
			a = strings.Replace(a, p, root+p, 1)
		}
		out[i] = a
	}
	return out
}

// TestToolImageStandsForOPM: everywhere an opm image is named, olmcat's
// own image does the job, run with the exact command lines OLM and the
// generated Dockerfiles give (paths mapped into the extracted image):
// the Dockerfiles of generate dockerfile and index add --generate (their
// RUN, then their ENTRYPOINT and CMD, Ready through the image's own
// probe), build --base-image, OLM's extractContent serving with and
// without a cache, OLM's unpack Job command line, and the Job of bundle
// unpack --tool-image.
func TestToolImageStandsForOPM(t *testing.T) {
	if testing.Short() && os.Getenv("OLMCAT_TEST_IMAGE_BINARIES") == "" {
		t.Skip("cross-compiles olmcat for two platforms; make test runs it with make build-images' binaries")
	}
	reg := imagetest.New(t)
	_, flags := imageTestEnv(t)
	tool, args := toolImageBuild(t, reg, flags)
	_, stderr, code := runCLI(t, args...)
	require.Equal(t, 0, code, stderr)
	amd64 := v1.Platform{OS: "linux", Architecture: "amd64"}
	_, toolRoot := pullImage(t, tool, amd64, "bin")
	opm, probe := filepath.Join(toolRoot, "bin", "opm"), filepath.Join(toolRoot, "bin", "grpc_health_probe")
	src := "../../fixtures/legacy/small-fbb/opm-migrate"

	t.Run("generate dockerfile", func(t *testing.T) {
		work := t.TempDir()
		copyTree(t, src, filepath.Join(work, "catalog"))
		_, stderr, code := runCLI(t, "generate", "dockerfile", filepath.Join(work, "catalog"), "-i", tool)
		require.Equal(t, 0, code, stderr)
		df := filepath.Join(work, "catalog.Dockerfile")
		data, err := os.ReadFile(df)
		require.NoError(t, err)
		assert.Contains(t, string(data), "FROM "+tool+" as builder\n")
		serverErr := runDockerfile(t, df, work, opm, probe)
		assert.Contains(t, serverErr, "catalog restored from cache", "the CMD serves the cache RUN wrote")
	})

	t.Run("index add --generate", func(t *testing.T) {
		bundle, err := filepath.Abs("../../fixtures/bundles/small-fbb/foo-bundle-v0.1.0")
		require.NoError(t, err)
		work := t.TempDir()
		t.Chdir(work)
		t.Setenv(noDeprecationWarningEnv, "1")
		_, stderr, code := runCLI(t, "index", "add", "-b", bundle, "--generate", "-i", tool)
		require.Equal(t, 0, code, stderr)
		serverErr := runDockerfile(t, filepath.Join(work, "index.Dockerfile"), work, opm, probe)
		assert.Contains(t, serverErr, "catalog restored from cache")
	})

	t.Run("build --base-image", func(t *testing.T) {
		ref := reg.Host + "/catalogs/on-olmcat:v1"
		_, stderr, code := runCLI(t, append([]string{"build", src, ref, "--base-image", tool, "--platform", "linux/amd64,linux/arm64"}, flags...)...)
		require.Equal(t, 0, code, stderr)
		pulled, root := pullImage(t, ref, amd64, "bin", "configs")
		cf, err := pulled.Image.ConfigFile()
		require.NoError(t, err)
		assert.Equal(t, []string{"PATH=" + image.SearchPath}, cf.Config.Env, "the base image's PATH is kept")
		argv := inRoot(root, append(cf.Config.Entrypoint, cf.Config.Cmd...))
		code, probeOut, serverErr := runInPodNet(t, filepath.Join(root, "bin", "grpc_health_probe"), argv...)
		require.Equal(t, 0, code, "probe: %s\nserver: %s", probeOut, serverErr)
		assert.Equal(t, "status: SERVING\n", probeOut)
	})

	t.Run("extractContent", func(t *testing.T) {
		catalog := reg.Host + "/catalogs/self:v1"
		_, stderr, code := runCLI(t, append([]string{"build", src, catalog, "--platform", "linux/amd64", "--binary", "linux/amd64=" + filepath.Join(toolRoot, "bin", "olmcat")}, flags...)...)
		require.Equal(t, 0, code, stderr)
		_, catRoot := pullImage(t, catalog, amd64, "configs", "tmp/cache")
		extracted := t.TempDir()
		// copy-content's copies: the same modes, new file times (the
		// cache shipped is opm's, whose digest has no times).
		copyTree(t, filepath.Join(catRoot, "configs"), filepath.Join(extracted, "catalog"))
		copyTree(t, filepath.Join(catRoot, "tmp", "cache"), filepath.Join(extracted, "cache"))
		for _, tc := range []struct {
			name   string
			args   []string
			cached bool
		}{
			{"cacheDir /tmp/cache", []string{"serve", filepath.Join(extracted, "catalog"), "--cache-dir=" + filepath.Join(extracted, "cache")}, true},
			{"no cacheDir", []string{"serve", filepath.Join(extracted, "catalog")}, false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				code, probeOut, serverErr := runInPodNet(t, probe, append([]string{opm}, tc.args...)...)
				require.Equal(t, 0, code, "probe: %s\nserver: %s", probeOut, serverErr)
				assert.Equal(t, "status: SERVING\n", probeOut)
				if tc.cached {
					assert.Contains(t, serverErr, "catalog restored from cache")
				}
			})
		}
	})

	t.Run("OLM's unpack Job", func(t *testing.T) {
		c := kubetest.Get(t)
		ns := c.Namespace(t)
		const bundleImage = "example/etcd-bundle:v0.9.2"
		bundleRoot := "../../fixtures/bundles/opm-bundles/etcd.0.9.2"
		createEmptyConfigMap(t, c, ns, "cm")
		bundle := filepath.Join(t.TempDir(), "bundle")
		copyTree(t, bundleRoot, bundle)
		code, out := runAsOLMExtract(t, c, toolRoot, "opm", "alpha", "bundle", "extract", "-m", bundle+"/", "-n", ns, "-c", "cm", "-z")
		require.Equal(t, 0, code, out)
		got, stderr, code := runCLI(t, "bundle", "load", ns+"/cm", "--kubeconfig", c.Kubeconfig(t, c.AdminConfig()))
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, opmImageRender(t, bundleRoot, bundleImage), got)
	})

	t.Run("bundle unpack --tool-image's Job", func(t *testing.T) {
		// util copies /bin/olmcat out, the copy copies the bundle (the
		// Job's extract then runs bundle extract, as above).
		util := filepath.Join(t.TempDir(), "olmcat")
		out, err := exec.Command(filepath.Join(toolRoot, "bin", "olmcat"), "bundle", "copy", "--self", util).CombinedOutput()
		require.NoError(t, err, "%s", out)
		dest := t.TempDir()
		out, err = exec.Command(util, "bundle", "copy", "--from", "../../fixtures/bundles/small-fbb/foo-bundle-v0.1.0", dest).CombinedOutput()
		require.NoError(t, err, "%s", out)
		_, err = os.Stat(filepath.Join(dest, "metadata", "annotations.yaml"))
		require.NoError(t, err)
	})
}

// inClusterScript gives the command a pod's service account: the CA and
// token at the fixed in-cluster path, on a tmpfs over /run (/var/run) in
// a mount namespace of its own.
const inClusterScript = `mount -t tmpfs tmpfs /run || exit 90
sa=/run/secrets/kubernetes.io/serviceaccount
mkdir -p $sa && cp "$SA_DIR/ca.crt" "$SA_DIR/token" $sa/ || exit 91
exec "$@"
`

// runAsOLMExtract runs argv as OLM's unpack Job's extract container does:
// the command looked up on the opm image's PATH (root's bin), the bundle
// image in CONTAINER_IMAGE, and the in-cluster configuration (the API
// server's address in the environment, CA and token at their path) of a
// token that may write ConfigMaps. Without unprivileged user and mount
// namespaces the test is skipped, unless TEST_ASSETS_REQUIRED is set.
func runAsOLMExtract(t *testing.T, c *kubetest.Cluster, root string, argv ...string) (int, string) {
	t.Helper()
	if err := exec.Command("unshare", "-rm", "mount", "-t", "tmpfs", "tmpfs", "/run").Run(); err != nil {
		if os.Getenv(kubetest.EnvRequired) == "" {
			t.Skipf("needs user and mount namespaces (unshare -rm): %v", err)
		}
		require.NoError(t, err, "unshare -rm mount -t tmpfs tmpfs /run")
	}
	sa := t.TempDir()
	cfg := c.AdminConfig()
	require.NoError(t, os.WriteFile(filepath.Join(sa, "ca.crt"), cfg.CAData, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(sa, "token"), []byte(cfg.BearerToken), 0o600))
	u, err := url.Parse(cfg.Host)
	require.NoError(t, err)
	cmd := exec.Command("unshare", append([]string{"-rm", "sh", "-c", inClusterScript, "pod"}, argv...)...)
	cmd.Env = []string{"PATH=" + filepath.Join(root, "bin") + ":/usr/bin:/bin", "SA_DIR=" + sa,
		"KUBERNETES_SERVICE_HOST=" + u.Hostname(), "KUBERNETES_SERVICE_PORT=" + u.Port(),
		"CONTAINER_IMAGE=example/etcd-bundle:v0.9.2"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "%s", out)
		return exit.ExitCode(), string(out)
	}
	return 0, string(out)
}
