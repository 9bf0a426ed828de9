package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

// TestIndexExport writes opm's appregistry layout from a catalog made
// by registry add of three bundle images: package.yaml as opm wrote it
// and each version's folder holding the image's manifests/ files byte
// for byte. An unknown package fails and writes nothing.
func TestIndexExport(t *testing.T) {
	reg := imagetest.New(t)
	_, flags := imageTestEnv(t)
	var imgs []string
	for _, v := range []string{"0.1.0", "0.2.0", "1.0.0"} {
		imgs = append(imgs, pushBundleImage(t, reg, "bundles/bar:v"+v, filepath.Join(fixtureBundles, "small-fbb/bar-bundle-v"+v)))
	}
	work := t.TempDir()
	cat := filepath.Join(work, "catalog")
	_, stderr, code := runCLI(t, append([]string{"registry", "add", "-d", filepath.Join(work, "new.db"), "-b", strings.Join(imgs, ","), "--output", cat, "--no-deprecation-warning"}, flags...)...)
	require.Equal(t, 0, code, stderr)
	require.NoFileExists(t, filepath.Join(work, "new.db"), "registry add writes no database")

	out := filepath.Join(work, "downloaded")
	_, stderr, code = runCLI(t, append([]string{"index", "export", "-i", cat, "-p", "bar", "-f", out, "--no-deprecation-warning"}, flags...)...)
	require.Equal(t, 0, code, stderr)
	pkgYAML, err := os.ReadFile(filepath.Join(out, "bar", "package.yaml"))
	require.NoError(t, err)
	require.Equal(t, "packageName: bar\nchannels:\n    - name: alpha\n      currentCSV: bar.v0.2.0\n    - name: stable\n      currentCSV: bar.v1.0.0\ndefaultChannel: stable\n", string(pkgYAML))
	for _, v := range []string{"0.1.0", "0.2.0", "1.0.0"} {
		require.Equal(t, snapshotTree(t, filepath.Join(fixtureBundles, "small-fbb/bar-bundle-v"+v, "manifests")), snapshotTree(t, filepath.Join(out, "bar", v)))
	}

	out2 := filepath.Join(work, "other")
	_, stderr, code = runCLI(t, append([]string{"index", "export", "-i", cat, "-p", "nosuch", "-f", out2, "--no-deprecation-warning"}, flags...)...)
	require.Equal(t, exitInvalid, code, stderr)
	require.Contains(t, stderr, "package nosuch is not in "+cat)
	require.NoDirExists(t, out2)
}

// TestRegistryAddPermissive: --permissive leaves out each bundle that
// fails to load or to add, says so, and adds the others; without it the
// first failure fails the command and nothing is written.
func TestRegistryAddPermissive(t *testing.T) {
	reg := imagetest.New(t)
	_, flags := imageTestEnv(t)
	good := pushBundleImage(t, reg, "bundles/foo:v0.3.0", filepath.Join(fixtureBundles, foo030))
	sameCSV := pushBundleImage(t, reg, "bundles/foo:v0.2.0", filepath.Join(fixtureBundles, foo020))
	missing := reg.Host + "/bundles/nosuch:v1"
	db := "../../fixtures/legacy/opreg-foo-index/index.db"
	out := filepath.Join(t.TempDir(), "out")
	args := append([]string{"registry", "add", "-d", db, "-b", strings.Join([]string{missing, sameCSV, good}, ","), "--output", out, "--no-deprecation-warning"}, flags...)
	_, stderr, code := runCLI(t, args...)
	require.Equal(t, exitInvalid, code, stderr)
	require.NoDirExists(t, out)

	_, stderr, code = runCLI(t, append(args, "--permissive")...)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "permissive: left out "+missing+": ")
	require.Contains(t, stderr, "permissive: left out bundle foo.v0.2.0 ("+sameCSV+"): Bundle already added that provides package and csv")
	require.Equal(t, "foo.v0.3.0<foo.v0.2.0", func() string {
		for _, e := range channelEntries(t, out, "foo")["beta"] {
			if e.Name == "foo.v0.3.0" {
				return e.Name + "<" + e.Replaces
			}
		}
		return ""
	}())
}
