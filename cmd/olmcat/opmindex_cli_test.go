package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

// TestOPMIndexNotices: every sqlite-era command prints one deprecation
// notice naming the FBC-native commands for the same job, with the image
// flags in use; --no-deprecation-warning and the variable silence it;
// registry commands without --output exit 2 naming those commands.
func TestOPMIndexNotices(t *testing.T) {
	t.Setenv(noDeprecationWarningEnv, "")
	missing := filepath.Join(t.TempDir(), "missing")
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "x.db")
	copyFile(t, "../../fixtures/legacy/small-fbb/index.db", db)
	for _, tc := range []struct {
		args  []string
		code  int
		steps string
	}{
		{[]string{"index", "add", "-f", missing, "-b", "b1,b2", "-t", "r.example/ns/i:2", "--use-http"}, exitInvalid,
			"olmcat unpack " + missing + " catalog --layout opm --use-http && olmcat add catalog b1 b2 --use-http && olmcat build catalog r.example/ns/i:2 --use-http"},
		{[]string{"index", "add", "-f", dir, "-b", "b1", "-t", "r.example/i:2"}, exitInvalid,
			"cp -r " + dir + " catalog && olmcat add catalog b1 && olmcat build catalog r.example/i:2"},
		{[]string{"registry", "rm", "-d", dir, "-o", "a", "--output", filepath.Join(dir, "..", "o")}, exitInvalid,
			"cp -r " + dir + " " + filepath.Join(dir, "..", "o") + " && rm -r " + filepath.Join(dir, "..", "o") + "/a"},
		{[]string{"index", "add", "-b", "b1", "--generate", "-i", "o.example/opm:1", "--mode", "semver"}, exitInvalid,
			"mkdir catalog && olmcat add catalog b1 --mode semver && olmcat generate dockerfile catalog -i o.example/opm:1"},
		{[]string{"index", "rm", "-f", missing, "-o", "a,b", "-t", "r.example/i:2"}, exitInvalid,
			"olmcat unpack " + missing + " catalog --layout opm && rm -r catalog/a && rm -r catalog/b && olmcat build catalog r.example/i:2"},
		{[]string{"index", "prune", "-f", missing, "-p", "a", "-t", "r.example/i:2", "--skip-tls-verify"}, exitInvalid,
			"olmcat unpack " + missing + " catalog --layout opm --skip-tls-verify && find catalog -mindepth 1 -maxdepth 1 ! -name a -exec rm -r {} + && olmcat build catalog r.example/i:2 --skip-tls-verify"},
		{[]string{"index", "prune-stranded", "-f", missing, "-t", "r.example/i:2"}, exitInvalid,
			"olmcat unpack " + missing + " catalog --layout opm && olmcat validate catalog && olmcat build catalog r.example/i:2"},
		{[]string{"index", "export", "-i", missing}, exitInvalid, "olmcat unpack " + missing + " catalog --layout objects"},
		{[]string{"registry", "add", "-d", db, "-b", "b1"}, exitUsage, "olmcat migrate " + db + " catalog && olmcat add catalog b1"},
		{[]string{"registry", "add", "-d", db, "-b", "b1", "--mode", "semver", "--enable-alpha"}, exitUsage, "olmcat migrate " + db + " catalog && olmcat add catalog b1 --mode semver --enable-alpha"},
		{[]string{"registry", "rm", "-d", db, "-o", "a"}, exitUsage, "olmcat migrate " + db + " catalog && rm -r catalog/a"},
		{[]string{"registry", "prune", "-d", db, "-p", "a,b"}, exitUsage, "olmcat migrate " + db + " catalog && find catalog -mindepth 1 -maxdepth 1 ! -name a ! -name b -exec rm -r {} +"},
		{[]string{"registry", "prune-stranded", "-d", db}, exitUsage, "olmcat migrate " + db + " catalog && olmcat validate catalog"},
		{[]string{"registry", "deprecatetruncate", "-d", db, "-b", "b1", "--permissive"}, exitUsage, "olmcat migrate " + db + " catalog && olmcat registry deprecatetruncate -d catalog --no-deprecation-warning -b b1 --permissive"},
	} {
		t.Run(strings.Join(tc.args[:2], "-"), func(t *testing.T) {
			_, stderr, code := runCLI(t, tc.args...)
			require.Equal(t, tc.code, code, stderr)
			require.Equal(t, 1, strings.Count(stderr, "DEPRECATION NOTICE"), stderr)
			require.Contains(t, stderr, "    "+tc.steps+"\n")
			if tc.code == exitUsage {
				require.Contains(t, stderr, "writes no sqlite database: pass --output DIR to write the resulting declarative config, or run: "+tc.steps)
			}
			_, stderr, _ = runCLI(t, append(tc.args, "--no-deprecation-warning")...)
			require.NotContains(t, stderr, "DEPRECATION")
			t.Setenv(noDeprecationWarningEnv, "1")
			_, stderr, _ = runCLI(t, tc.args...)
			require.NotContains(t, stderr, "DEPRECATION")
		})
	}
}

// TestOPMIndexUsage: opm's usage errors exit 2 naming the flag; daemon
// flags are accepted with one note line; the FBC-native commands print no
// notice.
func TestOPMIndexUsage(t *testing.T) {
	t.Setenv(noDeprecationWarningEnv, "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"index", "add", "-t", "r.example/i:1"}, `required flag(s) "bundles" not set`},
		{[]string{"index", "rm", "-o", "a"}, `required flag(s) "from-index" not set`},
		{[]string{"index", "prune", "-f", "x"}, `required flag(s) "packages" not set`},
		{[]string{"index", "export"}, `required flag(s) "index" not set`},
		{[]string{"registry", "rm"}, `required flag(s) "packages" not set`},
		{[]string{"index", "add", "-b", "b", "-t", "r.example/i:1", "--mode", "bogus"}, "Invalid channel update mode bogus specified"},
		{[]string{"registry", "add", "-b", "b", "--output", "o", "--mode", "x"}, "Invalid channel update mode x specified"},
		{[]string{"index", "add", "-b", "b"}, "--tag is required"},
		{[]string{"index", "add", "-b", "b", "--generate"}, "--generate needs --binary-image (-i)"},
		{[]string{"index", "add", "-b", "b", "-t", "r.example/i:1", "-d", "x.Dockerfile"}, "--out-dockerfile is only used with --generate"},
		{[]string{"index", "export", "-i", "x", "-p", "a", "-o", "b"}, "cannot simultaneously set '-p' and '-o' flags, remove '-o'"},
		{[]string{"index", "add", "-b", "b", "-t", "r.example/i:1", "--skip-tls", "--use-http"}, "invalid flag combination"},
	} {
		_, stderr, code := runCLI(t, append(tc.args, "--no-deprecation-warning")...)
		require.Equal(t, exitUsage, code, "%v: %s", tc.args, stderr)
		require.Contains(t, stderr, tc.want, tc.args)
	}
	_, stderr, _ := runCLI(t, "index", "add", "-b", "b", "-t", "r.example/i:1", "-f", filepath.Join(t.TempDir(), "x"), "-c", "podman", "--no-deprecation-warning")
	require.Equal(t, 1, strings.Count(stderr, "note: --container-tool=podman ignored"), stderr)
	_, stderr, _ = runCLI(t, "index", "prune", "-p", "a", "-t", "r.example/i:1", "-f", filepath.Join(t.TempDir(), "x"), "--no-deprecation-warning")
	require.NotContains(t, stderr, "note:", "index prune's default podman is no choice of the user")
	cat := t.TempDir()
	_, stderr, code := runCLI(t, "add", cat, filepath.Join(fixtureBundles, "small-fbb/bar-bundle-v0.1.0"))
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, stderr, "DEPRECATION")
}

// TestIndexAddTag: without --generate the result is built on
// --binary-image and pushed to --tag, and serves the same catalog --generate
// writes; an index command whose step fails pushes nothing.
func TestIndexAddTag(t *testing.T) {
	reg := imagetest.New(t)
	_, flags := imageTestEnv(t)
	from := pushIndexImage(t, reg, "opreg-foo-index")
	bundle := pushBundleImage(t, reg, "bundles/foo:v0.3.1", filepath.Join(fixtureBundles, foo031))
	base := reg.Push(t, "opm:v1", imagetest.Image(t, nil, nil, imagetest.Layer(t, imagetest.Entry{Name: "bin/opm", Body: "#!opm"})))
	tag := reg.Host + "/out/index:v2"
	stdout, stderr, code := runCLI(t, append([]string{"index", "add", "-f", from, "-b", bundle, "-t", tag, "-i", base, "--no-deprecation-warning"}, flags...)...)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, reg.Host+"/out/index@sha256:")
	pushed, stderr, code := runCLI(t, append([]string{"render", tag}, flags...)...)
	require.Equal(t, 0, code, stderr)
	work := t.TempDir()
	t.Chdir(work)
	_, stderr, code = runCLI(t, append([]string{"index", "add", "-f", from, "-b", bundle, "--generate", "-i", "o.example/opm:1", "--no-deprecation-warning"}, flags...)...)
	require.Equal(t, 0, code, stderr)
	generated, stderr, code := runCLI(t, "render", generatedCatalogDir)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, generated, pushed)
	// The pushed image is a declarative config image: a --from-index too.
	fbcWork := t.TempDir()
	t.Chdir(fbcWork)
	_, stderr, code = runCLI(t, append([]string{"index", "prune-stranded", "-f", tag, "--generate", "-i", "o.example/opm:1", "--no-deprecation-warning"}, flags...)...)
	require.Equal(t, 0, code, stderr)
	again, stderr, code := runCLI(t, "render", generatedCatalogDir)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, pushed, again)
	t.Chdir(work)
	var first map[string]any
	require.NoError(t, json.NewDecoder(strings.NewReader(pushed)).Decode(&first))
	require.Equal(t, "foo", first["name"])

	// A second --generate refuses to replace ./database and the
	// Dockerfile without --force; a failing add pushes nothing.
	before := snapshotTree(t, work)
	_, stderr, code = runCLI(t, append([]string{"index", "add", "-f", from, "-b", bundle, "--generate", "-i", "o.example/opm:1", "--no-deprecation-warning"}, flags...)...)
	require.Equal(t, exitUsage, code, stderr)
	require.Contains(t, stderr, "index.Dockerfile exists: pass --force")
	require.Equal(t, before, snapshotTree(t, work))
	_, stderr, code = runCLI(t, append([]string{"index", "add", "-f", from, "-b", bundle + "-nosuch", "-t", reg.Host + "/out/bad:v1", "-i", base, "--no-deprecation-warning"}, flags...)...)
	require.Equal(t, exitInvalid, code, stderr)
	_, _, code = runCLI(t, append([]string{"render", reg.Host + "/out/bad:v1"}, flags...)...)
	require.NotEqual(t, 0, code, "nothing pushed")
	require.NoError(t, os.RemoveAll(filepath.Join(work, generatedCatalogDir)))
}

// TestIndexOpsTellConversion: a sqlite-era command, or v1-check, reading
// a sqlite index says what its conversion repaired and dropped, once, in
// one line naming olmcat migrate --report.
func TestIndexOpsTellConversion(t *testing.T) {
	db, _ := filepath.Abs(filepath.Join(legacyFixtures, "observability-operator", "index.db"))
	summary := ": 0 repairs, 2 drops, 0 notes; run olmcat migrate with --report for the details\n"
	for _, tc := range []struct {
		args []string
		verb string
	}{
		{[]string{"registry", "prune-stranded", "-d", db, "--output", "out", "--no-deprecation-warning"}, "registry prune-stranded"},
		{[]string{"index", "prune-stranded", "-f", db, "--generate", "-i", "o.example/opm:1", "--no-deprecation-warning"}, "index prune-stranded"},
		{[]string{"index", "export", "-i", db, "-o", "observability-operator", "-f", "exported", "--no-deprecation-warning"}, "index export"},
		{[]string{"v1-check", db}, "v1-check"},
	} {
		t.Run(tc.verb, func(t *testing.T) {
			t.Chdir(t.TempDir())
			_, stderr, _ := runCLI(t, tc.args...)
			require.Equal(t, 1, strings.Count(stderr, summary), stderr)
			require.Contains(t, stderr, tc.verb+" "+db+summary)
		})
	}
}
