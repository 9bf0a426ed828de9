package main

import (
	"archive/tar"
	"context"
	"debug/elf"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
	"github.com/operator-catalog/olmcat/registry/api"
)

// crossBuild returns the slim static olmcat for linux/arch, the binary of
// the images: the one make build-images made (OLMCAT_TEST_IMAGE_BINARIES
// names its dir), else one compiled here into dir.
func crossBuild(t *testing.T, dir, arch string) string {
	t.Helper()
	if made := os.Getenv("OLMCAT_TEST_IMAGE_BINARIES"); made != "" {
		p := filepath.Join(made, "olmcat-linux-"+arch)
		_, err := os.Stat(p)
		require.NoError(t, err, "run make build-images")
		return p
	}
	out := filepath.Join(dir, "olmcat-linux-"+arch)
	cmd := exec.Command("go", "build", "-tags", "slim", "-ldflags", "-s -w", "-o", out, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "cross-compile for %s: %s", arch, msg)
	return out
}

// pullImage pulls ref for platform p and extracts the wanted paths.
func pullImage(t *testing.T, ref string, p v1.Platform, wanted ...string) (*image.Pulled, string) {
	t.Helper()
	pulled, err := image.Pull(context.Background(), ref, image.WithUseHTTP(true), image.WithPlatform(p),
		image.WithKeychain(image.AuthFileKeychain(filepath.Join(t.TempDir(), "none.json"))))
	require.NoError(t, err)
	root := t.TempDir()
	require.NoError(t, pulled.Extract(context.Background(), root, wanted))
	return pulled, root
}

// TestBuildCommand builds a self-serving two-platform image of a real
// catalog, pushes it to the loopback registry, and checks that it is
// reproducible, that parity --strict holds between the image and its
// source dir on both platforms, that each platform carries its own static
// binary (also as /bin/opm and /bin/grpc_health_probe, with PATH set),
// and that the amd64 binary in the image serves /configs from the
// pre-built cache.
func TestBuildCommand(t *testing.T) {
	if testing.Short() && os.Getenv("OLMCAT_TEST_IMAGE_BINARIES") == "" {
		t.Skip("cross-compiles olmcat for two platforms; make test runs it with make build-images' binaries")
	}
	bins := t.TempDir()
	amd64, arm64 := crossBuild(t, bins, "amd64"), crossBuild(t, bins, "arm64")
	reg := imagetest.New(t)
	tmp, flags := imageTestEnv(t)
	src := "../../fixtures/legacy/small-fbb/opm-migrate"
	ref := reg.Host + "/catalogs/small-fbb:v1"
	buildArgs := append([]string{"build", src, ref, "--platform", "linux/amd64,linux/arm64",
		"--binary", "linux/amd64=" + amd64, "--binary", "linux/arm64=" + arm64}, flags...)

	stdout, stderr, code := runCLI(t, buildArgs...)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "with a pre-built serve cache")
	digest := strings.TrimSpace(stdout)
	require.True(t, strings.HasPrefix(digest, reg.Host+"/catalogs/small-fbb@sha256:"), digest)

	// Same input, same digest; the OCI layout holds the same index.
	stdout, stderr, code = runCLI(t, buildArgs...)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, digest, strings.TrimSpace(stdout))
	layoutDir := filepath.Join(t.TempDir(), "oci")
	stdout, stderr, code = runCLI(t, append(buildArgs, "--push=false", "--oci-layout", layoutDir)...)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, digest, strings.TrimSpace(stdout))
	var index struct {
		Manifests []struct {
			Digest string `json:"digest"`
		} `json:"manifests"`
	}
	data, err := os.ReadFile(filepath.Join(layoutDir, "index.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &index))
	require.Len(t, index.Manifests, 1)
	require.Equal(t, digest[strings.Index(digest, "@")+1:], index.Manifests[0].Digest)

	for _, tc := range []struct {
		arch    string
		machine elf.Machine
	}{{"amd64", elf.EM_X86_64}, {"arm64", elf.EM_AARCH64}} {
		t.Run(tc.arch, func(t *testing.T) {
			_, stderr, code := runCLI(t, append([]string{"parity", ref, src, "--strict", "--platform", "linux/" + tc.arch}, flags...)...)
			require.Equal(t, 0, code, stderr)
			pulled, root := pullImage(t, ref, v1.Platform{OS: "linux", Architecture: tc.arch}, "bin/olmcat")
			cf, err := pulled.Image.ConfigFile()
			require.NoError(t, err)
			require.Equal(t, tc.arch, cf.Architecture)
			require.Equal(t, []string{image.BinaryPath}, cf.Config.Entrypoint)
			require.Equal(t, []string{"serve", "/configs", "--cache-dir=/tmp/cache"}, cf.Config.Cmd)
			require.Equal(t, "/configs", cf.Config.Labels[image.LabelConfigs])
			require.Equal(t, []string{"PATH=" + image.SearchPath}, cf.Config.Env, "OLM's probes exec grpc_health_probe through PATH")
			entries := layerEntries(t, pulled.Image)
			for _, name := range []string{"bin/opm", "bin/grpc_health_probe"} {
				require.Contains(t, entries, name)
				require.Equal(t, byte(tar.TypeLink), entries[name].Typeflag, name)
				require.Equal(t, "bin/olmcat", entries[name].Linkname, name)
			}
			f, err := elf.Open(filepath.Join(root, "bin", "olmcat"))
			require.NoError(t, err)
			defer f.Close()
			require.Equal(t, tc.machine, f.Machine)
		})
	}

	// The image's own entrypoint, run as its CMD says against the image's
	// files, serves from the shipped cache.
	_, root := pullImage(t, ref, v1.Platform{OS: "linux", Architecture: "amd64"}, "bin/olmcat", "configs", "tmp/cache")
	serveImageBinary(t, root)
	assertNoImageTemp(t, tmp)

	// OLM's extractContent hands the image's /tmp/cache, copied with the
	// configs (same modes, new times), to the real opm: it starts from it
	// with its integrity check and answers as the source dir.
	t.Run("opm serves the shipped cache", func(t *testing.T) {
		opm := opmBinary(t)
		extracted := t.TempDir()
		copyTree(t, filepath.Join(root, "configs"), filepath.Join(extracted, "catalog"))
		copyTree(t, filepath.Join(root, "tmp", "cache"), filepath.Join(extracted, "cache"))
		addr, log := startOPM(t, opm, filepath.Join(extracted, "catalog"), "--cache-dir="+filepath.Join(extracted, "cache"))
		require.Contains(t, log.String(), `msg="found existing cache contents" backend=json`)
		require.NotContains(t, log.String(), "building cache")
		_, stderr, code := runCLI(t, "parity", "grpc://"+addr, src, "--left-kind", "declcfg", "--strict")
		require.Equal(t, 0, code, stderr)
	})
}

// serveImageBinary runs root/bin/olmcat serve root/configs with the
// image's cache and waits until it logs that it serves from that cache.
func serveImageBinary(t *testing.T, root string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, filepath.Join(root, "bin", "olmcat"), "serve", filepath.Join(root, "configs"),
		"--cache-dir="+filepath.Join(root, "tmp", "cache"), "-p", "0")
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	defer func() {
		cancel()
		_ = cmd.Wait()
	}()
	require.Eventually(t, func() bool { return servingOn.MatchString(stderr.String()) }, 60*time.Second, 20*time.Millisecond, "not serving: %s", stderr.String())
	require.Contains(t, stderr.String(), "catalog restored from cache")
}

// TestBuildBaseImage puts the configs on an opm-like base index: labels
// kept and the configs label added, opm's entrypoint and command without
// a cache, one more layer, and the image renders as its source dir.
func TestBuildBaseImage(t *testing.T) {
	reg := imagetest.New(t)
	tmp, flags := imageTestEnv(t)
	arm := v1.Platform{OS: "linux", Architecture: "arm64"}
	opm := func(p *v1.Platform) v1.Image {
		return imagetest.Image(t, map[string]string{"org.opencontainers.image.title": "opm"}, p,
			imagetest.Layer(t, imagetest.Entry{Name: "bin/opm", Body: "#!opm"}))
	}
	base := reg.Push(t, "opm:latest", imagetest.Index(t, opm(nil), opm(&arm)))
	src := "../../fixtures/legacy/opreg-indexer-bundles/opm-migrate"
	ref := reg.Host + "/catalogs/on-opm:v1"
	_, stderr, code := runCLI(t, append([]string{"build", src, ref, "--base-image", base, "--platform", "linux/amd64,linux/arm64"}, flags...)...)
	require.Equal(t, 0, code, stderr)
	for _, p := range []v1.Platform{{OS: "linux", Architecture: "amd64"}, arm} {
		pulled, root := pullImage(t, ref, p, "bin/opm")
		cf, err := pulled.Image.ConfigFile()
		require.NoError(t, err)
		require.Equal(t, p.Architecture, cf.Architecture)
		require.Equal(t, []string{"/bin/opm"}, cf.Config.Entrypoint)
		require.Equal(t, []string{"serve", "/configs"}, cf.Config.Cmd)
		require.Equal(t, "/configs", cf.Config.Labels[image.LabelConfigs])
		require.Equal(t, "opm", cf.Config.Labels["org.opencontainers.image.title"])
		layers, err := pulled.Image.Layers()
		require.NoError(t, err)
		require.Len(t, layers, 2)
		_, err = os.Stat(filepath.Join(root, "bin", "opm"))
		require.NoError(t, err)
	}
	want, _, code := runCLI(t, "render", src)
	require.Equal(t, 0, code)
	got, stderr, code := runCLI(t, append([]string{"render", ref}, flags...)...)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, want, got)
	assertNoImageTemp(t, tmp)
}

// TestBuildErrors: an invalid catalog or a platform without a binary
// fails before anything is pushed or written.
func TestBuildErrors(t *testing.T) {
	reg := imagetest.New(t)
	_, flags := imageTestEnv(t)
	bad := writeCatalogFile(t, `{"schema":"olm.channel","name":"stable","package":"missing","entries":[{"name":"a.v1"}]}`)
	layoutDir := filepath.Join(t.TempDir(), "oci")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"invalid catalog", []string{"build", bad, reg.Host + "/bad:v1"}, exitInvalid, "is not a valid catalog"},
		{"no binary for a platform", []string{"build", "../../fixtures/legacy/small-fbb/opm-migrate", reg.Host + "/nobin:v1", "--platform", "linux/s390x"}, exitInvalid, "no olmcat binary for linux/s390x: build one with CGO_ENABLED=0"},
		{"not a static arm64 binary", []string{"build", "../../fixtures/legacy/small-fbb/opm-migrate", reg.Host + "/wrongbin:v1", "--platform", "linux/arm64", "--binary", "linux/arm64=../../fixtures/legacy/small-fbb/index.db"}, exitInvalid, "not an ELF executable"},
		{"push=false without a layout dir", []string{"build", "../../fixtures/legacy/small-fbb/opm-migrate", reg.Host + "/x:v1", "--push=false"}, exitUsage, "--oci-layout"},
		{"invalid catalog to a layout", []string{"build", bad, reg.Host + "/bad:v1", "--push=false", "--oci-layout", layoutDir}, exitInvalid, "is not a valid catalog"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, append(tc.args, flags...)...)
			require.Equal(t, tc.code, code, stderr)
			require.Contains(t, stderr, tc.want)
			_, err := os.Stat(layoutDir)
			require.True(t, os.IsNotExist(err))
		})
	}
	_, stderr, code := runCLI(t, append([]string{"render", reg.Host + "/bad:v1"}, flags...)...)
	require.NotEqual(t, 0, code)
	require.Contains(t, stderr, "image not found", "nothing was pushed")
}

// TestBuildBaseImageReplacesItsCatalog: a base image that already holds a
// catalog (3 packages at /configs, with a serve cache) gets the new
// catalog (14 packages) instead of the union of both: the result serves
// exactly the 14 packages built and carries no old cache.
func TestBuildBaseImageReplacesItsCatalog(t *testing.T) {
	reg := imagetest.New(t)
	tmp, flags := imageTestEnv(t)
	old := "../../fixtures/legacy/small-fbb/opm-migrate"
	src := "../../fixtures/legacy/community-bundles/opm-migrate"
	base := reg.Push(t, "old-catalog:v1", imagetest.Image(t, map[string]string{image.LabelConfigs: "/configs"}, nil,
		imagetest.Layer(t, imagetest.Entry{Name: "bin/opm", Body: "#!opm"}, imagetest.Entry{Name: "tmp/cache/pogreb.v1/digest", Body: "old"}),
		imagetest.DirLayer(t, old, "configs")))
	ref := reg.Host + "/catalogs/rebuilt:v1"
	_, stderr, code := runCLI(t, append([]string{"build", src, ref, "--base-image", base}, flags...)...)
	require.Equal(t, 0, code, stderr)

	s := startServe(t, append([]string{ref}, flags...)...)
	stream, err := api.NewRegistryClient(s.conn).ListPackages(context.Background(), &api.ListPackageRequest{})
	require.NoError(t, err)
	var got []string
	for {
		p, err := stream.Recv()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		got = append(got, p.GetName())
	}
	ents, err := os.ReadDir(src)
	require.NoError(t, err)
	var want []string
	for _, e := range ents {
		want = append(want, e.Name())
	}
	require.Len(t, want, 14)
	require.ElementsMatch(t, want, got, "served packages")
	require.NoError(t, s.stop(t))

	_, root := pullImage(t, ref, v1.Platform{OS: "linux", Architecture: "amd64"}, "tmp", "bin")
	_, err = os.Stat(filepath.Join(root, "tmp", "cache"))
	require.True(t, os.IsNotExist(err), "the base image's serve cache is still in the image")
	_, err = os.Stat(filepath.Join(root, "bin", "opm"))
	require.NoError(t, err, "the rest of the base image is kept")
	assertNoImageTemp(t, tmp)
}
