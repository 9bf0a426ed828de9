package input_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

const sqliteFixture = "../fixtures/legacy/small-fbb/index.db"

// testImages pushes the images Resolve is tried on to a loopback
// registry: a catalog of declarative configs, one of a sqlite database,
// one carrying both, and a bundle.
func testImages(t *testing.T) map[string]string {
	t.Helper()
	reg := imagetest.New(t)
	db, err := os.ReadFile(sqliteFixture)
	require.NoError(t, err)
	configs := imagetest.DirLayer(t, "testdata/catalog", "configs")
	database := imagetest.Layer(t, imagetest.Entry{Name: "database/index.db", Body: string(db)})
	bundle := imagetest.DirLayer(t, "testdata/bundle", ".")
	return map[string]string{
		"configs": reg.Push(t, "catalog:configs", imagetest.Image(t, map[string]string{image.LabelConfigs: "/configs"}, nil, configs)),
		"sqlite":  reg.Push(t, "catalog:sqlite", imagetest.Image(t, map[string]string{image.LabelDatabase: "/database/index.db"}, nil, database)),
		"both": reg.Push(t, "catalog:both", imagetest.Image(t,
			map[string]string{image.LabelConfigs: "/configs", image.LabelDatabase: "/database/index.db"}, nil, configs, database)),
		"bundle":  reg.Push(t, "bundle:v1", imagetest.Image(t, map[string]string{annotation.Package: "foo"}, nil, bundle)),
		"missing": reg.Host + "/catalog:missing",
	}
}

func TestResolve(t *testing.T) {
	images := testImages(t)
	tmp := t.TempDir()
	pullOpts := input.WithImageOptions(func(string) ([]image.Option, error) {
		return []image.Option{image.WithUseHTTP(true), image.WithTempDir(tmp),
			image.WithKeychain(image.AuthFileKeychain(filepath.Join(t.TempDir(), "none.json")))}, nil
	})
	for _, tc := range []struct {
		name  string
		ref   string
		want  input.Want
		opts  []input.Option
		kind  input.Kind
		image bool   // pulled from an image
		has   string // a file Path holds
		err   error  // the error's type
	}{
		{name: "catalog dir", ref: "testdata/catalog", want: input.Catalog, kind: input.KindDeclcfg, has: "foo/catalog.json"},
		{name: "blob file", ref: "testdata/catalog.json", want: input.Either, kind: input.KindDeclcfgFile},
		{name: "sqlite index", ref: sqliteFixture, want: input.Catalog, kind: input.KindSQLite},
		{name: "live server", ref: "grpc://127.0.0.1:50051", want: input.Catalog, kind: input.KindGRPC},
		{name: "catalogd server", ref: "http://127.0.0.1:8080/catalogs/ops", want: input.Catalog, kind: input.KindCatalogd},
		{name: "bundle dir read as a catalog", ref: "testdata/bundle", want: input.Catalog, kind: input.KindDeclcfg},
		{name: "bundle dir", ref: "testdata/bundle", want: input.Either, kind: input.KindBundle, has: "metadata/annotations.yaml"},
		{name: "bundle dir wanted alone", ref: "testdata/bundle", want: input.Bundle, kind: input.KindBundle},
		{name: "catalog dir is no bundle", ref: "testdata/catalog", want: input.Bundle, err: &input.NotBundleError{}},
		{name: "configs image", ref: images["configs"], want: input.Catalog, kind: input.KindDeclcfg, image: true, has: "foo/catalog.json"},
		{name: "forced image reference", ref: "docker://" + images["configs"], want: input.Catalog, kind: input.KindDeclcfg, image: true},
		{name: "sqlite image", ref: images["sqlite"], want: input.Catalog, kind: input.KindSQLite, image: true},
		{name: "image of both reads configs", ref: images["both"], want: input.Catalog, kind: input.KindDeclcfg, image: true},
		{name: "image of both reads sqlite when preferred", ref: images["both"], want: input.Catalog, opts: []input.Option{input.PreferSQLite()},
			kind: input.KindSQLite, image: true},
		{name: "bundle image where a catalog is wanted", ref: images["bundle"], want: input.Catalog, err: &input.BundleError{}},
		{name: "bundle image", ref: images["bundle"], want: input.Either, kind: input.KindBundle, image: true, has: "manifests/foo.clusterserviceversion.yaml"},
		{name: "bundle image wanted alone", ref: images["bundle"], want: input.Bundle, kind: input.KindBundle, image: true},
		{name: "catalog image is no bundle", ref: images["configs"], want: input.Bundle, err: &input.NotBundleError{}},
		{name: "bundle's image field", ref: images["bundle"], want: input.Bundle, opts: []input.Option{input.AsImage()}, kind: input.KindBundle, image: true},
		{name: "image not in the registry", ref: images["missing"], want: input.Catalog, err: &input.PullError{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := input.Resolve(context.Background(), tc.ref, tc.want, append([]input.Option{pullOpts}, tc.opts...)...)
			if tc.err != nil {
				require.Error(t, err)
				assert.IsType(t, tc.err, err)
				assert.Nil(t, in)
				assertEmpty(t, tmp)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.ref, in.Ref)
			assert.Equal(t, tc.kind, in.Kind)
			if tc.image {
				assert.NotEqual(t, tc.ref, in.Path)
				assert.NotEmpty(t, in.Image)
			} else {
				assert.Equal(t, tc.ref, in.Path)
				assert.Empty(t, in.Image)
			}
			if tc.has != "" {
				assert.FileExists(t, filepath.Join(in.Path, filepath.FromSlash(tc.has)))
			}
			require.NoError(t, in.Close())
			assertEmpty(t, tmp)
		})
	}
}

func TestResolveErrors(t *testing.T) {
	images := testImages(t)
	ctx := context.Background()

	var be *input.BundleError
	_, err := input.Resolve(ctx, images["bundle"], input.Catalog, input.WithImageOptions(httpOnly(t)))
	require.ErrorAs(t, err, &be)
	assert.Equal(t, input.BundleError{Ref: images["bundle"], Image: true}, *be)

	var nb *input.NotBundleError
	_, err = input.Resolve(ctx, images["sqlite"], input.Bundle, input.WithImageOptions(httpOnly(t)))
	require.ErrorAs(t, err, &nb)
	assert.Equal(t, input.NotBundleError{Ref: images["sqlite"], Kind: input.KindImage, Image: true, Catalog: "sqlite"}, *nb)
	assert.EqualError(t, err, images["sqlite"]+" is a sqlite catalog image, not a bundle image")
	_, err = input.Resolve(ctx, sqliteFixture, input.Bundle)
	assert.EqualError(t, err, sqliteFixture+" is a sqlite, not a bundle image or bundle directory")

	// The image options are made only for an image, and their error is
	// returned as it is.
	bad := errors.New("bad image flags")
	fails := input.WithImageOptions(func(string) ([]image.Option, error) { return nil, bad })
	in, err := input.Resolve(ctx, "testdata/catalog", input.Catalog, fails)
	require.NoError(t, err)
	require.NoError(t, in.Close())
	_, err = input.Resolve(ctx, images["configs"], input.Catalog, fails)
	require.ErrorIs(t, err, bad)

	var pe *input.PullError
	_, err = input.Resolve(ctx, images["missing"], input.Catalog, input.WithImageOptions(httpOnly(t)))
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, images["missing"], pe.Image)
	assert.Equal(t, pe.Err.Error(), err.Error(), "the pull's own text")

	_, err = input.Resolve(ctx, "testdata/missing", input.Catalog)
	require.ErrorIs(t, err, os.ErrNotExist)
}

// httpOnly pulls from the loopback registry in plain HTTP, with no
// credentials of the machine.
func httpOnly(t *testing.T) func(string) ([]image.Option, error) {
	t.Helper()
	opts := []image.Option{image.WithUseHTTP(true), image.WithTempDir(t.TempDir()),
		image.WithKeychain(image.AuthFileKeychain(filepath.Join(t.TempDir(), "none.json")))}
	return func(string) ([]image.Option, error) { return opts, nil }
}

func TestImageDirName(t *testing.T) {
	name, ok := input.ImageDirName("registry.example.com/ns/index:v4.14")
	assert.True(t, ok)
	assert.Equal(t, "index-v4.14", name)
	_, ok = input.ImageDirName("testdata/catalog")
	assert.False(t, ok)

	in, err := input.Classify("oci:./catalog-oci:v1")
	require.NoError(t, err)
	assert.Equal(t, input.KindImage, in.Kind)
	assert.Equal(t, "catalog-oci-v1", in.DirName())
	local, err := input.Classify("testdata/catalog")
	require.NoError(t, err)
	assert.Empty(t, local.DirName())
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, ents, "%s: left behind", dir)
}
