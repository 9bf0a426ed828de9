package action_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/bundle"
	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

// imageEnv is an Env pulling from the loopback registry reg, extracting
// into a temporary directory of the test's, and the bundle images of
// dirs pushed there.
func imageEnv(t *testing.T, dirs ...string) (action.Env, []string) {
	t.Helper()
	t.Setenv("TMPDIR", t.TempDir())
	reg := imagetest.New(t)
	var refs []string
	for i, dir := range dirs {
		meta, err := bundle.ReadMetadata(os.DirFS(dir))
		require.NoError(t, err)
		labels := map[string]string{annotation.Package: meta.Package(), annotation.Channels: meta.Annotations[annotation.Channels]}
		refs = append(refs, reg.Push(t, "bundles/b:v"+string(rune('0'+i)), imagetest.Image(t, labels, nil,
			imagetest.DirLayer(t, filepath.Join(dir, "manifests"), "manifests"),
			imagetest.DirLayer(t, filepath.Join(dir, "metadata"), "metadata"))))
	}
	env := action.Env{ImageOptions: func() ([]image.Option, error) { return []image.Option{image.WithUseHTTP(true)}, nil }}
	return env, refs
}

// files maps the files under dir to their contents.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(data)
		return err
	}))
	return out
}

// TestIndexExport: a catalog of bundle images, made by a registry add
// of them, exported in the appregistry layout: package.yaml as opm wrote
// it and each version's folder holding its image's manifests/; an
// unknown package fails and writes nothing.
func TestIndexExport(t *testing.T) {
	var dirs []string
	for _, v := range []string{"0.1.0", "0.2.0", "1.0.0"} {
		dirs = append(dirs, filepath.Join(bundles, "small-fbb/bar-bundle-v"+v))
	}
	env, refs := imageEnv(t, dirs...)
	ctx := context.Background()
	work := t.TempDir()
	cat := filepath.Join(work, "catalog")
	_, err := action.RegistryEdit{Env: env, Database: cat, Edit: action.AddBundles{Bundles: refs}}.Run(ctx)
	require.NoError(t, err)

	out := filepath.Join(work, "downloaded")
	res, err := action.IndexExport{Env: env, Index: cat, Folder: out}.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, action.IndexExportResult{Bundles: 3, Packages: 1}, res)
	got := files(t, out)
	require.Equal(t, "packageName: bar\nchannels:\n    - name: alpha\n      currentCSV: bar.v0.2.0\n    - name: stable\n      currentCSV: bar.v1.0.0\ndefaultChannel: stable\n",
		got["bar/package.yaml"])
	for _, v := range []string{"0.1.0", "0.2.0", "1.0.0"} {
		for name, data := range files(t, filepath.Join(bundles, "small-fbb/bar-bundle-v"+v, "manifests")) {
			require.Equal(t, data, got[filepath.Join("bar", v, name)])
		}
	}

	other := filepath.Join(work, "other")
	_, err = action.IndexExport{Env: env, Index: cat, Packages: []string{"nosuch"}, Folder: other}.Run(ctx)
	require.EqualError(t, err, "package nosuch is not in "+cat)
	require.NoDirExists(t, other)
}

// TestAdd: bundles added to a catalog directory (an image and a bundle
// directory), the changes in the result; an invalid result writes
// nothing.
func TestAdd(t *testing.T) {
	env, refs := imageEnv(t, filepath.Join(bundles, "opm-bundles/etcd.0.9.0"))
	ctx := context.Background()
	cat := copyCatalog(t, smallCatalog)
	res, err := action.Add{Env: env, Dir: cat, Bundles: []string{refs[0], filepath.Join(bundles, "community/couchdb-operator/1.4.2")}}.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"couchdb-operator", "etcd"}, res.Packages)
	require.Equal(t, 2, res.Bundles)
	require.Contains(t, res.Changes, "created package etcd (default channel stable)")
	require.Equal(t, []string{"bar", "baz", "couchdb-operator", "etcd", "foo"}, packagesIn(t, cat))

	before := files(t, cat)
	_, err = action.Add{Env: env, Dir: cat, Bundles: []string{refs[0]}}.Run(ctx)
	require.ErrorContains(t, err, "nothing was written")
	require.Equal(t, before, files(t, cat))

	_, err = action.Add{Dir: cat, Mode: "sideways"}.Run(ctx)
	requireActionError(t, err, action.KindUsage, "Add.Mode")
}
