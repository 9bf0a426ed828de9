package main

import (
	"debug/elf"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

// noCredentials points every place credentials are looked up at empty
// test dirs.
func noCredentials(t *testing.T) {
	t.Helper()
	t.Setenv("REGISTRY_AUTH_FILE", "")
	for _, env := range []string{"HOME", "DOCKER_CONFIG", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME"} {
		t.Setenv(env, t.TempDir())
	}
}

// TestGraphRefusesBundles: a bundle has no upgrade graph; graph refuses a
// bundle image and a bundle directory as validate and serve do, instead
// of printing an empty picture.
func TestGraphRefusesBundles(t *testing.T) {
	reg := imagetest.New(t)
	_, flags := imageTestEnv(t)
	dir := "../../fixtures/bundles/community/cockroachdb/5.0.4"
	ref := pushBundleImage(t, reg, "bundles/cockroachdb:5.0.4", dir)
	for _, tc := range []struct{ arg, out, want string }{
		{ref, "svg", "this is a bundle image"},
		{ref, "mermaid", "this is a bundle image"},
		{dir, "mermaid", "this is a bundle directory"},
		{dir, "svg", "this is a bundle directory"},
	} {
		t.Run(tc.arg+" "+tc.out, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, append([]string{"graph", tc.arg, "-o", tc.out}, flags...)...)
			assert.Equal(t, exitInvalid, code)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, tc.want)
			assert.Contains(t, stderr, "olmcat render "+tc.arg)
		})
	}
}

// TestOneReferenceRule: unpack and build read their image arguments by
// the rule every command uses (an unqualified name is a local path;
// docker://, oci: and oci-archive: are images), and the output of build
// --oci-layout is read back by render, serve, unpack, migrate and add
// without a registry.
func TestOneReferenceRule(t *testing.T) {
	reg := imagetest.New(t)
	tmp, flags := imageTestEnv(t)
	src := "../../fixtures/legacy/opreg-indexer-bundles/opm-migrate"
	opm := reg.Push(t, "opm:latest", imagetest.Image(t, nil, nil, imagetest.Layer(t, imagetest.Entry{Name: "bin/opm", Body: "#!opm"})))
	fbcRef := pushConfigsImage(t, reg, "ns/fbc:v1", src)
	work := t.TempDir()
	pkgDir, err := os.Getwd()
	require.NoError(t, err)
	abs := func(p string) string { return filepath.Join(pkgDir, p) }
	want, _, code := runCLI(t, "render", src)
	require.Equal(t, 0, code)
	t.Chdir(work)

	_, stderr, code := runCLI(t, append([]string{"unpack", "index:v1"}, flags...)...)
	assert.Equal(t, exitInvalid, code)
	assert.Contains(t, stderr, "unpack index:v1: no such file or directory, and not an image reference")
	assert.NotContains(t, stderr, "pull", "a registry was contacted")
	_, stderr, code = runCLI(t, append([]string{"unpack", abs(src)}, flags...)...)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "not an image")
	_, stderr, code = runCLI(t, append([]string{"unpack", "docker://" + fbcRef, "from-docker", "--layout", "opm"}, flags...)...)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, snapshotTree(t, abs(src)), snapshotTree(t, "from-docker"))

	// build writes a layout (and pushes to docker:// references).
	_, stderr, code = runCLI(t, append([]string{"build", abs(src), "docker://" + reg.Host + "/ns/built:v1", "--base-image", opm}, flags...)...)
	require.Equal(t, 0, code, stderr)
	_, stderr, code = runCLI(t, append([]string{"build", abs(src), reg.Host + "/ns/built:v1", "--base-image", opm, "--push=false", "--oci-layout", "out-oci"}, flags...)...)
	require.Equal(t, 0, code, stderr)
	for _, arg := range []string{"oci:out-oci", "oci:out-oci:v1", "oci:out-oci:" + reg.Host + "/ns/built:v1"} {
		got, stderr, code := runCLI(t, append([]string{"render", arg}, flags...)...)
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, want, got, arg)
	}
	_, stderr, code = runCLI(t, append([]string{"unpack", "oci:out-oci", "--layout", "opm"}, flags...)...)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, snapshotTree(t, abs(src)), snapshotTree(t, "out-oci-catalog"), "unpacked next to the layout, named after it")
	s := startServe(t, append([]string{"oci:out-oci"}, flags...)...)
	require.NoError(t, s.stop(t))

	// A sqlite index image in an OCI archive migrates; a bundle image in a
	// layout is added.
	db, err := os.ReadFile(abs("../../fixtures/legacy/small-fbb/index.db"))
	require.NoError(t, err)
	dbImg := imagetest.Image(t, map[string]string{image.LabelDatabase: "/database/index.db"}, nil, imagetest.Layer(t, imagetest.Entry{Name: "database/index.db", Body: string(db)}))
	lp, err := layout.Write("db-oci", empty.Index)
	require.NoError(t, err)
	require.NoError(t, lp.AppendImage(dbImg, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": "v1"})))
	archive := imagetest.ArchiveDir(t, "db-oci", "db-oci.tar")
	_, stderr, code = runCLI(t, append([]string{"migrate", "oci-archive:" + archive + ":v1", "migrated"}, flags...)...)
	require.Equal(t, 0, code, stderr)
	_, stderr, code = runCLI(t, "migrate", abs("../../fixtures/legacy/small-fbb/index.db"), "migrated-file")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, snapshotTree(t, "migrated-file"), snapshotTree(t, "migrated"))

	bundleDir := abs(filepath.Join(fixtureBundles, "opm-bundles/etcd.0.9.0"))
	bundleRef := pushBundleImage(t, reg, "etcd-bundle:v0.9.0", bundleDir)
	pulled, err := image.Pull(t.Context(), bundleRef, image.WithUseHTTP(true))
	require.NoError(t, err)
	bp, err := layout.Write("bundle-oci", empty.Index)
	require.NoError(t, err)
	require.NoError(t, bp.AppendImage(pulled.Image))
	copyTree(t, abs("../../fixtures/legacy/small-fbb/opm-migrate"), "catalog")
	_, stderr, code = runCLI(t, append([]string{"add", "catalog", "oci:bundle-oci"}, flags...)...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "created package etcd")
	assertNoImageTemp(t, tmp)
}

// TestImageRegistryMessages: auth, plain-HTTP and push failures say what
// happened and what to do; build's layout flags are checked up front.
func TestImageRegistryMessages(t *testing.T) {
	secured := imagetest.New(t, imagetest.WithBasicAuth("alice", "s3cret"))
	plain := imagetest.New(t, imagetest.OnAltLoopback())
	reg := imagetest.New(t)
	_, flags := imageTestEnv(t)
	src := "../../fixtures/legacy/small-fbb/opm-migrate"
	securedRef := pushConfigsImage(t, secured, "ns/fbc:v1", src)
	plainRef := pushConfigsImage(t, plain, "ns/fbc:v1", src)
	opm := reg.Push(t, "opm:latest", imagetest.Image(t, nil, nil, imagetest.Layer(t, imagetest.Entry{Name: "bin/opm", Body: "#!opm"})))
	noCredentials(t)
	wrong := filepath.Join(t.TempDir(), "wrong.json")
	require.NoError(t, os.WriteFile(wrong, []byte(`{"auths":{"`+secured.Host+`":{"auth":"YWxpY2U6d3Jvbmc="}}}`), 0o600))
	layoutDir := filepath.Join(t.TempDir(), "oci")
	noHTTP := flags[1:] // without --use-http
	for _, tc := range []struct {
		name     string
		authFile string
		args     []string
		code     int
		want     string
	}{
		{"missing REGISTRY_AUTH_FILE", filepath.Join(t.TempDir(), "none.json"), append([]string{"render", securedRef}, flags...), exitUsage, "REGISTRY_AUTH_FILE names"},
		{"401 without credentials", "", append([]string{"render", securedRef}, flags...), exitInvalid, "no credentials for " + secured.Host + " were found"},
		{"401 with wrong credentials", wrong, append([]string{"render", securedRef}, flags...), exitInvalid, "the registry refused the credentials found for " + secured.Host},
		{"plain HTTP registry without --use-http", "", append([]string{"render", plainRef}, noHTTP...), exitInvalid, "add --use-http"},
		{"push refused", "", append([]string{"build", src, securedRef, "--base-image", opm}, flags...), exitInvalid, "push " + securedRef + ": unauthorized"},
		{"--oci-layout without --push=false", "", append([]string{"build", src, "x.test/ns/c:v1", "--base-image", opm, "--oci-layout", layoutDir}, flags...), exitUsage, "add --push=false"},
		{"--force without a layout", "", append([]string{"build", src, reg.Host + "/ns/c:v1", "--base-image", opm, "--force"}, flags...), exitUsage, "--force only applies to --oci-layout"},
		{"push target is a layout", "", append([]string{"build", src, "oci:" + layoutDir, "--base-image", opm}, flags...), exitUsage, "--push=false --oci-layout DIR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("REGISTRY_AUTH_FILE", tc.authFile)
			_, stderr, code := runCLI(t, tc.args...)
			assert.Equal(t, tc.code, code, stderr)
			assert.Contains(t, stderr, tc.want)
			_, err := os.Stat(layoutDir)
			assert.True(t, os.IsNotExist(err), "layout written")
		})
	}

	build := append([]string{"build", src, "x.test/ns/c:v1", "--base-image", opm, "--push=false", "--oci-layout", layoutDir}, flags...)
	_, stderr, code := runCLI(t, build...)
	require.Equal(t, 0, code, stderr)
	_, stderr, code = runCLI(t, build...)
	assert.Equal(t, exitUsage, code, "an existing output is a usage error")
	assert.Contains(t, stderr, "--force replaces it")
	_, stderr, code = runCLI(t, append(build, "--force")...)
	require.Equal(t, 0, code, stderr)
	ents, _ := os.ReadDir(filepath.Dir(layoutDir))
	assert.Len(t, ents, 1, "the old layout is removed once replaced")
}

// TestImageLimitsAndCacheFromCLI: a limit hit names its flag, which
// raises it; an edited cached layer does not change what render prints.
func TestImageLimitsAndCacheFromCLI(t *testing.T) {
	reg := imagetest.New(t)
	tmp, flags := imageTestEnv(t)
	src := "../../fixtures/legacy/small-fbb/opm-migrate"
	ref := pushConfigsImage(t, reg, "ns/fbc:v1", src)
	want, _, code := runCLI(t, "render", src)
	require.Equal(t, 0, code)

	_, stderr, code := runCLI(t, append([]string{"render", ref, "--max-image-files", "2"}, flags...)...)
	assert.Equal(t, exitInvalid, code)
	assert.Contains(t, stderr, "more than 2 files: refused (raise it with --max-image-files)")
	_, stderr, code = runCLI(t, append([]string{"render", ref, "--max-image-bytes", "1KiB"}, flags...)...)
	assert.Equal(t, exitInvalid, code)
	assert.Contains(t, stderr, "total bytes limit of 1.0 KiB: refused (raise it with --max-image-bytes)")
	_, stderr, code = runCLI(t, append([]string{"render", ref, "--max-image-bytes", "1KB"}, flags...)...)
	assert.Equal(t, exitUsage, code, stderr)

	bomb := imagetest.ZerosLayer(t, "configs/zeros.json", 80<<20)
	bombRef := reg.Push(t, "ns/bomb:v1", imagetest.Image(t, map[string]string{image.LabelConfigs: "/configs"}, nil, bomb))
	_, stderr, code = runCLI(t, append([]string{"render", bombRef}, flags...)...)
	assert.Equal(t, exitInvalid, code)
	assert.Contains(t, stderr, "entry configs/zeros.json: expands more than 250 times")
	assert.Contains(t, stderr, "(raise it with --max-image-ratio)")

	cache := t.TempDir()
	cflags := append(append([]string(nil), flags...), "--image-cache-dir", cache)
	got, stderr, code := runCLI(t, append([]string{"render", ref}, cflags...)...)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, want, got)
	blobs, err := filepath.Glob(filepath.Join(cache, "blobs", "sha256", "*"))
	require.NoError(t, err)
	require.Len(t, blobs, 1)
	evil := imagetest.DirLayer(t, "../../fixtures/legacy/opreg-indexer-bundles/opm-migrate", "configs")
	rc, err := evil.Compressed()
	require.NoError(t, err)
	data, err := io.ReadAll(rc)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(blobs[0], data, 0o644))
	got, stderr, code = runCLI(t, append([]string{"render", ref}, cflags...)...)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, want, got, "the edited cache blob was served")
	assert.Contains(t, stderr, "note: cached layer sha256:"+filepath.Base(blobs[0])+" was damaged")
	assertNoImageTemp(t, tmp)
}

// TestStaticBinaryAdvice: README's install line makes the static binary
// build needs, and build's refusal of a dynamic one says how to make it.
func TestStaticBinaryAdvice(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	n := strings.Count(string(readme), "go install ./cmd/olmcat")
	require.Positive(t, n)
	assert.Equal(t, n, strings.Count(string(readme), "CGO_ENABLED=0 go install ./cmd/olmcat"), "an install line without CGO_ENABLED=0")

	dynamic := ""
	for _, c := range []string{"ls", "sh", "cat"} {
		p, err := exec.LookPath(c)
		if err != nil {
			continue
		}
		if f, err := elf.Open(p); err == nil {
			for _, prog := range f.Progs {
				if prog.Type == elf.PT_INTERP {
					dynamic = p
				}
			}
			f.Close()
		}
		if dynamic != "" {
			break
		}
	}
	if dynamic == "" {
		t.Skip("no dynamically linked executable on this machine")
	}
	reg := imagetest.New(t)
	_, flags := imageTestEnv(t)
	platform := "linux/" + runtime.GOARCH
	_, stderr, code := runCLI(t, append([]string{"build", "../../fixtures/legacy/small-fbb/opm-migrate", reg.Host + "/ns/c:v1",
		"--platform", platform, "--binary", platform + "=" + dynamic}, flags...)...)
	assert.Equal(t, exitInvalid, code)
	assert.Contains(t, stderr, "is dynamically linked")
	assert.Contains(t, stderr, "CGO_ENABLED=0 go install ./cmd/olmcat")
}
