package declcfgquery

import (
	"context"
	"encoding/base64"
	"fmt"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/model"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/operator-catalog/olmcat/registry/api"
)

// leanDirs are catalogs whose bundles carry manifests in every form:
// inline objects, objects by reference (opm-migrate), olm.csv.metadata
// (synthetic CSVs, with the package's description and icon), bundles
// without an image (manifests in ListBundles).
func leanDirs(t *testing.T) []string {
	t.Helper()
	dirs := []string{"testdata/deprecations"}
	for _, pat := range []string{"../../fixtures/legacy/*/opm-migrate", "../../fixtures/legacy/*/opm-migrate-csvmetadata"} {
		m, err := filepath.Glob(pat)
		require.NoError(t, err)
		dirs = append(dirs, m...)
	}
	require.Greater(t, len(dirs), 3)
	return dirs
}

// CollectBundles drains ListBundles (exported for the package's external
// tests too).
func CollectBundles(t testing.TB, q *Querier) []*api.Bundle {
	t.Helper()
	var out []*api.Bundle
	require.NoError(t, q.ListBundles(context.Background(), func(b *api.Bundle) error {
		out = append(out, b)
		return nil
	}))
	return out
}

// TestFilesServeWhatTheModelServes: a Querier that reads manifests back
// from the catalog files per call answers exactly as one built from the
// whole model in memory.
func TestFilesServeWhatTheModelServes(t *testing.T) {
	ctx := context.Background()
	for _, dir := range leanDirs(t) {
		t.Run(dir, func(t *testing.T) {
			full, lean := fullAndLean(t, dir)

			require.Len(t, lean.src.(*fileSource).refs, len(lean.bundles), "every bundle's manifests are read from its blob")
			fl, ll := CollectBundles(t, full), CollectBundles(t, lean)
			require.Len(t, ll, len(fl))
			for i := range fl {
				require.True(t, proto.Equal(fl[i], ll[i]), "ListBundles #%d: %s", i, fl[i].CsvName)
			}
			for _, b := range fl {
				want, err := full.GetBundle(ctx, b.PackageName, b.ChannelName, b.CsvName)
				require.NoError(t, err)
				got, err := lean.GetBundle(ctx, b.PackageName, b.ChannelName, b.CsvName)
				require.NoError(t, err)
				require.True(t, proto.Equal(want, got), "GetBundle %s/%s/%s", b.PackageName, b.ChannelName, b.CsvName)
			}
			for _, name := range full.names {
				for _, c := range full.packages[name].pkg.Channels {
					want, err := full.GetBundleForChannel(ctx, name, c.Name)
					require.NoError(t, err)
					got, err := lean.GetBundleForChannel(ctx, name, c.Name)
					require.NoError(t, err)
					require.True(t, proto.Equal(want, got), "GetBundleForChannel %s/%s", name, c.Name)
				}
			}
		})
	}
}

// TestFilesChangedUnderTheServer: a catalog file rewritten after loading
// is reported by the calls that would read it, never served.
func TestFilesChangedUnderTheServer(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS("testdata/deprecations")))
	q, err := loadFromFiles(ctx, dir)
	require.NoError(t, err)
	_, err = q.GetBundle(ctx, "cool", "stable", "cool.v1.0.0")
	require.NoError(t, err)

	for _, file := range q.src.(*fileSource).files {
		p := filepath.Join(dir, filepath.FromSlash(file))
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(p, append(data, '\n'), 0o644))
		require.NoError(t, os.Chtimes(p, time.Now(), time.Now().Add(time.Hour)))
	}
	_, err = q.GetBundle(ctx, "cool", "stable", "cool.v1.0.0")
	require.ErrorContains(t, err, "changed since the catalog was loaded")
	require.ErrorContains(t, err, `bundle "cool.v1.0.0"`)
	err = q.ListBundles(ctx, func(*api.Bundle) error { return nil })
	require.ErrorContains(t, err, "changed since the catalog was loaded", "the inline bundle's manifests are read for ListBundles")
	// What the index holds is still served.
	p, err := q.GetPackage(ctx, "cool")
	require.NoError(t, err)
	require.Equal(t, "stable", p.DefaultChannelName)
}

// TestFilesDeletedUnderTheServer: a removed file is an error naming it.
func TestFilesDeletedUnderTheServer(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS("testdata/deprecations")))
	q, err := loadFromFiles(ctx, dir)
	require.NoError(t, err)
	for _, file := range q.src.(*fileSource).files {
		require.NoError(t, os.Remove(filepath.Join(dir, filepath.FromSlash(file))))
	}
	_, err = q.GetBundle(ctx, "cool", "stable", "cool.v1.0.0")
	require.ErrorContains(t, err, "read manifests of bundle \"cool.v1.0.0\"")
	require.ErrorIs(t, err, os.ErrNotExist)
}

// TestFilesFailAsTheFullLoad: a catalog that does not load or does not
// validate fails Load (which reads it lean, dropping manifests) with the
// error of the full load and model (loadModel), object problems included.
func TestFilesFailAsTheFullLoad(t *testing.T) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	pkg := `{"schema":"olm.package","name":"p","defaultChannel":"s"}` + "\n" +
		`{"schema":"olm.channel","package":"p","name":"s","entries":[{"name":"p.v1"}]}` + "\n"
	bundle := func(image string, props ...string) string {
		return `{"schema":"olm.bundle","package":"p","name":"p.v1","image":"` + image + `","properties":[` + strings.Join(props, ",") + "]}\n"
	}
	pkgProp := `{"type":"olm.package","value":{"packageName":"p","version":"1.0.0"}}`
	obj := func(data string) string { return `{"type":"olm.bundle.object","value":{"data":"` + data + `"}}` }
	for name, catalog := range map[string]string{
		"object not JSON or YAML": pkg + bundle("", pkgProp, obj(b64("[1, 2"))),
		"object not an object":    pkg + bundle("", pkgProp, obj(b64("[1,2]"))),
		"object bad base64":       pkg + bundle("", pkgProp, obj("e30")),
		"no image nor objects":    pkg + bundle("", pkgProp),
		"bad version":             pkg + bundle("example.com/x/y:1", `{"type":"olm.package","value":{"packageName":"p","version":"x"}}`, obj(b64(`{"kind":"ConfigMap"}`))),
		"unknown default channel": `{"schema":"olm.package","name":"p","defaultChannel":"nope"}` + "\n" + pkg[strings.Index(pkg, "\n")+1:] + bundle("example.com/x/y:1", pkgProp),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "catalog.json"), []byte(catalog), 0o644))
			_, want := loadModel(context.Background(), dir)
			require.Error(t, want)
			_, err := Load(context.Background(), dir)
			require.EqualError(t, err, want.Error())
		})
	}
}

// loadModel reads and validates the catalog directory the full way (every
// manifest decoded and held), the reference Load must agree with.
func loadModel(ctx context.Context, dir string) (*model.Model, error) {
	cfg, err := declcfg.LoadDir(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("load catalog %s: %w", dir, err)
	}
	m, err := model.FromDeclcfg(cfg)
	if err != nil {
		return nil, fmt.Errorf("validate catalog %s: %w", dir, err)
	}
	return m, nil
}

// TestFilesMixedLayout: packages spread over several files, files holding
// several packages, JSON and YAML: served exactly as the model serves
// them, manifests read back from either format.
func TestFilesMixedLayout(t *testing.T) {
	ctx := context.Background()
	cfg, err := declcfg.LoadDir(ctx, "../../fixtures/legacy/small-fbb/opm-migrate")
	require.NoError(t, err)
	dir := t.TempDir()
	write := func(name string, part *declcfg.DeclarativeConfig, yaml bool) {
		f, err := os.Create(filepath.Join(dir, name))
		require.NoError(t, err)
		defer f.Close()
		if yaml {
			require.NoError(t, declcfg.WriteYAML(f, part))
		} else {
			require.NoError(t, declcfg.WriteJSON(f, part))
		}
	}
	half := len(cfg.Bundles) / 2
	write("a-heads.json", &declcfg.DeclarativeConfig{Packages: cfg.Packages, Channels: cfg.Channels, Deprecations: cfg.Deprecations}, false)
	write("b-bundles.json", &declcfg.DeclarativeConfig{Bundles: cfg.Bundles[:half]}, false)
	write("c-bundles.yaml", &declcfg.DeclarativeConfig{Bundles: cfg.Bundles[half:]}, true)

	full, lean := fullAndLean(t, dir)
	fl, ll := CollectBundles(t, full), CollectBundles(t, lean)
	require.Len(t, ll, len(fl))
	csvs := map[string]bool{}
	for i := range fl {
		require.True(t, proto.Equal(fl[i], ll[i]), "ListBundles #%d", i)
		want, err := full.GetBundle(ctx, fl[i].PackageName, fl[i].ChannelName, fl[i].CsvName)
		require.NoError(t, err)
		got, err := lean.GetBundle(ctx, fl[i].PackageName, fl[i].ChannelName, fl[i].CsvName)
		require.NoError(t, err)
		require.True(t, proto.Equal(want, got), "GetBundle %s", fl[i].CsvName)
		if got.CsvJson != "" {
			src := lean.src.(*fileSource)
			mi, ok := lean.member(lean.packages[got.PackageName].channels[got.ChannelName], got.CsvName)
			require.True(t, ok)
			csvs[src.files[src.refs[lean.members[mi].Bundle].File]] = true
		}
	}
	require.Len(t, csvs, 2, "manifests read back from the JSON and the YAML file")
}

// fullAndLean loads dir twice: the reference Querier built from the whole
// model (manifests in memory) and the one Load builds from the files.
func fullAndLean(t *testing.T, dir string) (full, lean *Querier) {
	t.Helper()
	ctx := context.Background()
	m, err := loadModel(ctx, dir)
	require.NoError(t, err)
	full, err = New(m)
	require.NoError(t, err)
	lean, err = loadFromFiles(ctx, dir)
	require.NoError(t, err)
	require.IsType(t, &fileSource{}, lean.src)
	require.Equal(t, full.stats, lean.stats)
	return full, lean
}
