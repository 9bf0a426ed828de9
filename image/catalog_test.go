package image_test

import (
	"archive/tar"
	"context"
	"os"
	"path/filepath"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

type E = imagetest.Entry

var configsLabels = map[string]string{image.LabelConfigs: "/configs"}

// extractOpts are the options every test pull uses: HTTP to loopback, no
// keychain lookups on the machine, extraction in a test dir.
func extractOpts(t *testing.T, tmp string, extra ...image.Option) []image.Option {
	t.Helper()
	return append([]image.Option{image.WithUseHTTP(true), image.WithKeychain(image.AuthFileKeychain(filepath.Join(t.TempDir(), "none.json"))), image.WithTempDir(tmp)}, extra...)
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	assert.Empty(t, names, "%s: entries left behind", dir)
}

func TestExtractCatalogFlattensWhiteoutsAndOpaqueDirs(t *testing.T) {
	reg := imagetest.New(t)
	lower := imagetest.Layer(t,
		E{Name: "configs/", Type: tar.TypeDir},
		E{Name: "configs/a/catalog.json", Body: "old a"},
		E{Name: "configs/b/catalog.json", Body: "old b"},
		E{Name: "configs/c/catalog.json", Body: "old c"},
		E{Name: "etc/passwd", Body: "not extracted"},
	)
	upper := imagetest.Layer(t,
		E{Name: "configs/a/catalog.json", Body: "new a"},
		E{Name: "configs/.wh.b"},
		E{Name: "configs/c/.wh..wh..opq"},
		E{Name: "configs/c/other.json", Body: "c2"},
		E{Name: "./configs/d.json", Body: "d"},
	)
	ref := reg.Push(t, "cat:v1", imagetest.Image(t, configsLabels, nil, lower, upper))
	tmp := t.TempDir()
	u, err := image.ExtractCatalog(context.Background(), ref, extractOpts(t, tmp)...)
	require.NoError(t, err)
	got := map[string]string{}
	filepath.Walk(u.Root, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(u.Root, p)
			got[filepath.ToSlash(rel)] = string(data)
		}
		return nil
	})
	want := map[string]string{"configs/a/catalog.json": "new a", "configs/c/other.json": "c2", "configs/d.json": "d"}
	assert.Equal(t, want, got, "extracted")
	assert.Equal(t, image.KindConfigs, u.Kind)
	assert.Equal(t, filepath.Join(u.Root, "configs"), u.Local)
	require.NoError(t, u.Close())
	assertEmpty(t, tmp)
}

func TestExtractCatalogCatalogChoice(t *testing.T) {
	reg := imagetest.New(t)
	both := imagetest.Layer(t, E{Name: "configs/p/catalog.json", Body: "{}"}, E{Name: "database/index.db", Body: "db"})
	labelsBoth := map[string]string{image.LabelConfigs: "/configs", image.LabelDatabase: "/database/index.db"}
	refBoth := reg.Push(t, "both:v1", imagetest.Image(t, labelsBoth, nil, both))
	refRel := reg.Push(t, "rel:v1", imagetest.Image(t, map[string]string{image.LabelDatabase: "./index.db"}, nil, imagetest.Layer(t, E{Name: "index.db", Body: "db"})))
	for _, tc := range []struct {
		name   string
		ref    string
		opts   []image.Option
		kind   image.Kind
		suffix string
	}{
		{"configs preferred", refBoth, nil, image.KindConfigs, "configs"},
		{"migrate prefers sqlite", refBoth, []image.Option{image.WithPreferSQLite(true)}, image.KindSQLite, "database/index.db"},
		{"source configs overrides", refBoth, []image.Option{image.WithPreferSQLite(true), image.WithSource(image.SourceConfigs)}, image.KindConfigs, "configs"},
		{"source sqlite overrides", refBoth, []image.Option{image.WithSource(image.SourceSQLite)}, image.KindSQLite, "database/index.db"},
		{"relative label joined to root", refRel, nil, image.KindSQLite, "index.db"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, err := image.ExtractCatalog(context.Background(), tc.ref, extractOpts(t, t.TempDir(), tc.opts...)...)
			require.NoError(t, err)
			defer u.Close()
			assert.Equal(t, tc.kind, u.Kind)
			assert.Equal(t, filepath.Join(u.Root, tc.suffix), u.Local)
		})
	}
}

// TestExtractCatalogBadInputs: every bad image is a clear error and leaves no
// temporary directory behind.
func TestExtractCatalogBadInputs(t *testing.T) {
	reg := imagetest.New(t)
	push := func(repo string, labels map[string]string, entries ...E) string {
		return reg.Push(t, repo, imagetest.Image(t, labels, nil, imagetest.Layer(t, entries...)))
	}
	arm := v1.Platform{OS: "linux", Architecture: "arm64"}
	s390 := v1.Platform{OS: "linux", Architecture: "s390x"}
	idx := reg.Push(t, "multi:v1", imagetest.Index(t,
		imagetest.Image(t, configsLabels, &arm, imagetest.Layer(t, E{Name: "configs/a.json", Body: "{}"})),
		imagetest.Image(t, configsLabels, &s390, imagetest.Layer(t, E{Name: "configs/a.json", Body: "{}"}))))
	for _, tc := range []struct {
		name, ref string
		want      []string
	}{
		{"unknown tag", reg.Host + "/cat:nope", []string{"image not found", "cat:nope"}},
		{"unknown repository", reg.Host + "/nothing/here:v1", []string{"image not found"}},
		{"no labels", push("nolabel:v1", nil, E{Name: "configs/a.json"}), []string{"not a catalog or bundle image", "the image has no labels"}},
		{"other labels", push("other:v1", map[string]string{"vendor": "x"}, E{Name: "configs/a.json"}), []string{"labels found:", "vendor=x"}},
		{"missing configs path", push("missing:v1", configsLabels, E{Name: "other/a.json"}), []string{"label " + image.LabelConfigs + "=/configs names a path the image does not contain", "labels found:"}},
		{"missing db path", push("missingdb:v1", map[string]string{image.LabelDatabase: "/database/index.db"}, E{Name: "configs/a.json"}), []string{image.LabelDatabase + "=/database/index.db names a path the image does not contain"}},
		{"dot-dot entry", push("dotdot:v1", configsLabels, E{Name: "configs/a.json"}, E{Name: "configs/../../escape.json", Body: "x"}), []string{`entry "configs/../../escape.json" climbs out of the image root`}},
		{"absolute symlink", push("abs:v1", configsLabels, E{Name: "configs/host.json", Type: tar.TypeSymlink, Linkname: "/etc/passwd"}), []string{"symlink configs/host.json -> /etc/passwd points outside configs: refused"}},
		{"relative symlink out", push("rel:v1", configsLabels, E{Name: "configs/p/x.json", Type: tar.TypeSymlink, Linkname: "../../etc/passwd"}), []string{"points outside configs"}},
		{"write through symlink", push("through:v1", configsLabels,
			E{Name: "configs/d", Type: tar.TypeSymlink, Linkname: "/configs/e"},
			E{Name: "configs/d/f.json", Body: "x"}), []string{"parent configs/d is not a directory"}},
		{"hardlink out", push("hard:v1", configsLabels, E{Name: "etc/passwd", Body: "x"}, E{Name: "configs/p.json", Type: tar.TypeLink, Linkname: "etc/passwd"}), []string{"hardlink configs/p.json -> etc/passwd points outside configs: refused"}},
		{"configs is a symlink", push("cfglink:v1", configsLabels, E{Name: "configs", Type: tar.TypeSymlink, Linkname: "/data"}), []string{"symlink configs -> /data points outside configs: refused"}},
		{"platform not in index", idx, []string{"no image for platform linux/amd64", "platforms present: linux/arm64, linux/s390x (choose one of them)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			u, err := image.ExtractCatalog(context.Background(), tc.ref, extractOpts(t, tmp)...)
			if err == nil {
				u.Close()
			}
			require.Error(t, err)
			for _, w := range tc.want {
				assert.ErrorContains(t, err, w)
			}
			assertEmpty(t, tmp)
		})
	}
}

func TestExtractCatalogPlatform(t *testing.T) {
	reg := imagetest.New(t)
	arm := v1.Platform{OS: "linux", Architecture: "arm64"}
	ref := reg.Push(t, "multi:v1", imagetest.Index(t,
		imagetest.Image(t, configsLabels, nil, imagetest.Layer(t, E{Name: "configs/arch", Body: "amd64"})),
		imagetest.Image(t, configsLabels, &arm, imagetest.Layer(t, E{Name: "configs/arch", Body: "arm64"}))))
	for _, tc := range []struct {
		opts []image.Option
		want string
	}{{nil, "amd64"}, {[]image.Option{image.WithPlatform(arm)}, "arm64"}} {
		u, err := image.ExtractCatalog(context.Background(), ref, extractOpts(t, t.TempDir(), tc.opts...)...)
		require.NoError(t, err)
		data, _ := os.ReadFile(filepath.Join(u.Local, "arch"))
		assert.Equal(t, tc.want, string(data))
		assert.NotNil(t, u.Pulled.Index, "no index digest recorded")
		u.Close()
	}
}

// TestExtractCatalogLayerCache: a second pull of the same image reads its layers
// from the cache (an OCI layout) and asks the registry for none of them.
func TestExtractCatalogLayerCache(t *testing.T) {
	reg := imagetest.New(t)
	l1 := imagetest.Layer(t, E{Name: "configs/a.json", Body: `{"schema":"olm.package","name":"a"}`})
	l2 := imagetest.Layer(t, E{Name: "configs/b.json", Body: `{"schema":"olm.package","name":"b"}`})
	ref := reg.Push(t, "cached:v1", imagetest.Image(t, configsLabels, nil, l1, l2))
	cache := t.TempDir()
	var want int64
	for _, l := range []v1.Layer{l1, l2} {
		n, _ := l.Size()
		want += n
	}
	for run := 1; run <= 2; run++ {
		prog := &countProgress{}
		u, err := image.ExtractCatalog(context.Background(), ref, extractOpts(t, t.TempDir(), image.WithCacheDir(cache), image.WithProgress(prog))...)
		require.NoError(t, err)
		u.Close()
		assert.Equal(t, want, prog.total, "run %d: progress total", run)
		assert.Equal(t, want, prog.read, "run %d: progress read", run)
		assert.True(t, prog.done, "run %d: progress done", run)
	}
	for _, l := range []v1.Layer{l1, l2} {
		d, _ := l.Digest()
		assert.Equal(t, 1, reg.BlobGets(d.String()), "layer %s fetches", d)
		assert.FileExists(t, filepath.Join(cache, "blobs", "sha256", d.Hex), "layer cached")
	}
	assert.FileExists(t, filepath.Join(cache, "oci-layout"), "cache is an OCI layout")
}

// TestExtractCatalogSymlinkChainStaysInside: links are written to the target
// they name inside the image, so a chain whose real resolution would
// climb out (y -> ../.., x -> y/../..) resolves inside instead.
func TestExtractCatalogSymlinkChainStaysInside(t *testing.T) {
	reg := imagetest.New(t)
	ref := reg.Push(t, "chain:v1", imagetest.Image(t, configsLabels, nil, imagetest.Layer(t,
		E{Name: "configs/a/b/y", Type: tar.TypeSymlink, Linkname: "../.."},
		E{Name: "configs/a/b/x", Type: tar.TypeSymlink, Linkname: "y/../.."})))
	u, err := image.ExtractCatalog(context.Background(), ref, extractOpts(t, t.TempDir())...)
	require.NoError(t, err)
	defer u.Close()
	real, err := filepath.EvalSymlinks(filepath.Join(u.Local, "a", "b", "x"))
	require.NoError(t, err)
	rootReal, _ := filepath.EvalSymlinks(u.Local)
	assert.Equal(t, filepath.Join(rootReal, "a"), real, "x resolves inside")
}

type countProgress struct {
	total, read int64
	done        bool
}

func (p *countProgress) Start(total int64) { p.total = total }
func (p *countProgress) Add(n int64)       { p.read += n }
func (p *countProgress) Done()             { p.done = true }
