package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

// pushDBImage pushes a sqlite index image of dbPath, laid out as opm
// index add lays it out (/database/index.db and its label).
func pushDBImage(t *testing.T, reg *imagetest.Registry, repoTag, dbPath string) string {
	t.Helper()
	data, err := os.ReadFile(dbPath)
	require.NoError(t, err)
	layer := imagetest.Layer(t, imagetest.Entry{Name: "database/index.db", Body: string(data)})
	return reg.Push(t, repoTag, imagetest.Image(t, map[string]string{image.LabelDatabase: "/database/index.db"}, nil, layer))
}

// pushConfigsImage pushes a file-based catalog image of dir at /configs.
func pushConfigsImage(t *testing.T, reg *imagetest.Registry, repoTag, dir string) string {
	t.Helper()
	return reg.Push(t, repoTag, imagetest.Image(t, map[string]string{image.LabelConfigs: "/configs"}, nil, imagetest.DirLayer(t, dir, "configs")))
}

// imageTestEnv points the temp dir and the image cache at test dirs and
// returns the flags every image command of a test needs.
func imageTestEnv(t *testing.T) (tmp string, flags []string) {
	t.Helper()
	tmp = t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv(noDeprecationWarningEnv, "")
	t.Setenv(image.RegistriesConfEnv, filepath.Join(t.TempDir(), "none.conf"))
	conf := filepath.Join(t.TempDir(), "registries.conf")
	require.NoError(t, os.WriteFile(conf, nil, 0o644))
	return tmp, []string{"--use-http", "--image-cache-dir", t.TempDir(), "--registries-conf", conf}
}

// assertNoImageTemp fails if an extraction dir was left in tmp.
func assertNoImageTemp(t *testing.T, tmp string) {
	t.Helper()
	left, _ := filepath.Glob(filepath.Join(tmp, "olmcat-image-*"))
	require.Empty(t, left, "temporary extraction dirs left behind")
}

// TestImageInputsEqualFiles: migrate, render, validate and parity of an
// image give exactly what the same db file or dir gives.
func TestImageInputsEqualFiles(t *testing.T) {
	reg := imagetest.New(t)
	tmp, flags := imageTestEnv(t)
	for _, fx := range []string{"small-fbb", "opreg-indexer-bundles", "community-bundles"} {
		t.Run(fx, func(t *testing.T) {
			db := filepath.Join("../../fixtures/legacy", fx, "index.db")
			dbRef := pushDBImage(t, reg, fx+"/index:v1", db)
			cfgRef := pushConfigsImage(t, reg, fx+"/fbc:v1", filepath.Join("../../fixtures/legacy", fx, "opm-migrate"))
			out := t.TempDir()

			_, stderr, code := runCLI(t, "migrate", db, filepath.Join(out, "file"))
			require.Equal(t, 0, code, stderr)
			_, stderr, code = runCLI(t, append([]string{"migrate", dbRef, filepath.Join(out, "image")}, flags...)...)
			require.Equal(t, 0, code, stderr)
			require.NotContains(t, stderr, "WARNING", "migrate prints no deprecation warning")
			require.Contains(t, stderr, "migrated "+dbRef)
			require.Equal(t, snapshotTree(t, filepath.Join(out, "file")), snapshotTree(t, filepath.Join(out, "image")))

			fileOut, _, code := runCLI(t, "render", db)
			require.Equal(t, 0, code)
			imgOut, stderr, code := runCLI(t, append([]string{"render", dbRef}, flags...)...)
			require.Equal(t, 0, code, stderr)
			require.Equal(t, fileOut, imgOut)

			dirOut, _, code := runCLI(t, "render", filepath.Join("../../fixtures/legacy", fx, "opm-migrate"))
			require.Equal(t, 0, code)
			imgOut, stderr, code = runCLI(t, append([]string{"render", cfgRef}, flags...)...)
			require.Equal(t, 0, code, stderr)
			require.Equal(t, dirOut, imgOut)

			stdout, stderr, code := runCLI(t, append([]string{"validate", cfgRef}, flags...)...)
			require.Equal(t, 0, code, stderr)
			require.Empty(t, stdout)
			require.Contains(t, stderr, "OK: "+cfgRef)

			_, stderr, code = runCLI(t, append([]string{"parity", dbRef, cfgRef, "--no-deprecation-warning"}, flags...)...)
			require.Equal(t, 0, code, stderr)
			assertNoImageTemp(t, tmp)
		})
	}
}

// TestMigrateImagePrefersSQLite: an image with both labels is migrated
// from its database; --source configs reads the configs instead.
func TestMigrateImagePrefersSQLite(t *testing.T) {
	reg := imagetest.New(t)
	tmp, flags := imageTestEnv(t)
	data, err := os.ReadFile("../../fixtures/legacy/small-fbb/index.db")
	require.NoError(t, err)
	labels := map[string]string{image.LabelDatabase: "/database/index.db", image.LabelConfigs: "/configs"}
	img := imagetest.Image(t, labels, nil,
		imagetest.Layer(t, imagetest.Entry{Name: "database/index.db", Body: string(data)}),
		imagetest.DirLayer(t, "../../fixtures/legacy/small-fbb/opm-migrate-csvmetadata", "configs"))
	ref := reg.Push(t, "both:v1", img)
	out := t.TempDir()
	_, stderr, code := runCLI(t, append([]string{"migrate", ref, filepath.Join(out, "db")}, flags...)...)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "(schema level", "the database was migrated")
	_, stderr, code = runCLI(t, append([]string{"migrate", ref, filepath.Join(out, "cfg"), "--source", "configs"}, flags...)...)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "wrote the declarative configs of "+ref)
	require.NotEqual(t, snapshotTree(t, filepath.Join(out, "db")), snapshotTree(t, filepath.Join(out, "cfg")))
	assertNoImageTemp(t, tmp)
}

// TestImageInputErrors: bad images fail every command with a clear
// error, write nothing and leave no temp dir.
func TestImageInputErrors(t *testing.T) {
	reg := imagetest.New(t)
	tmp, flags := imageTestEnv(t)
	noLabel := reg.Push(t, "nolabel:v1", imagetest.Image(t, map[string]string{"vendor": "acme"}, nil, imagetest.Layer(t, imagetest.Entry{Name: "configs/a.json", Body: "{}"})))
	missing := reg.Push(t, "missing:v1", imagetest.Image(t, map[string]string{image.LabelDatabase: "/database/index.db"}, nil, imagetest.Layer(t, imagetest.Entry{Name: "configs/a.json", Body: "{}"})))
	bundle := reg.Push(t, "bundle:v1", imagetest.Image(t, map[string]string{annotation.Package: "etcd"}, nil, imagetest.Layer(t, imagetest.Entry{Name: "manifests/a.yaml", Body: "{}"})))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown tag", []string{"migrate", reg.Host + "/nothing:v1", "OUT"}, "image not found"},
		{"no catalog label", []string{"migrate", noLabel, "OUT"}, "labels found:\n  vendor=acme"},
		{"label to a missing db", []string{"migrate", missing, "OUT"}, "names a path the image does not contain"},
		{"bundle image refused by migrate", []string{"migrate", bundle, "OUT"}, "this is a bundle image (label " + annotation.Package + "), not a catalog: run olmcat render"},
		{"bundle image refused by serve", []string{"serve", bundle}, "not a catalog"},
		{"platform", []string{"render", noLabel, "--platform", "linux"}, "--platform"},
		{"validate of a missing label", []string{"validate", missing}, "names a path the image does not contain"},
		{"parity of an unknown image", []string{"parity", reg.Host + "/nothing:v1", "../../fixtures/legacy/small-fbb/opm-migrate"}, "image not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := append([]string(nil), tc.args...)
			for i := range args {
				args[i] = strings.ReplaceAll(args[i], "OUT", out)
			}
			_, stderr, code := runCLI(t, append(args, flags...)...)
			require.NotEqual(t, 0, code)
			require.Contains(t, stderr, tc.want)
			_, err := os.Stat(out)
			require.True(t, os.IsNotExist(err), "output written")
			assertNoImageTemp(t, tmp)
		})
	}
}
