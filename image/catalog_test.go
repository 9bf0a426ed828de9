package image_test

import (
	"archive/tar"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/image/imagetest"
)

type E = imagetest.Entry

var configsLabels = map[string]string{image.LabelConfigs: "/configs"}

// extractOpts are the options every test pull uses: HTTP to loopback, no
// keychain lookups on the machine, extraction in a test dir.
func extractOpts(t *testing.T, tmp string, extra ...image.Option) []image.Option {
	return append([]image.Option{image.WithUseHTTP(true), image.WithKeychain(image.AuthFileKeychain(filepath.Join(t.TempDir(), "none.json"))), image.WithTempDir(tmp)}, extra...)
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		t.Errorf("%s: %d entries left behind (first %s)", dir, len(ents), ents[0].Name())
	}
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
	if err != nil {
		t.Fatal(err)
	}
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
	if len(got) != len(want) {
		t.Errorf("extracted %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if u.Kind != image.KindConfigs || u.Local != filepath.Join(u.Root, "configs") {
		t.Errorf("kind %s local %s", u.Kind, u.Local)
	}
	if err := u.Close(); err != nil {
		t.Fatal(err)
	}
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
			if err != nil {
				t.Fatal(err)
			}
			defer u.Close()
			if u.Kind != tc.kind || u.Local != filepath.Join(u.Root, tc.suffix) {
				t.Errorf("got %s at %s", u.Kind, u.Local)
			}
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
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nwant it to contain %q", err, w)
				}
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
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(filepath.Join(u.Local, "arch"))
		if string(data) != tc.want {
			t.Errorf("got %q, want %q", data, tc.want)
		}
		if u.Pulled.Index == nil {
			t.Error("no index digest recorded")
		}
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
		if err != nil {
			t.Fatal(err)
		}
		u.Close()
		if prog.total != want || prog.read != want || !prog.done {
			t.Errorf("run %d: progress total %d read %d done %v, want %d bytes", run, prog.total, prog.read, prog.done, want)
		}
	}
	for _, l := range []v1.Layer{l1, l2} {
		d, _ := l.Digest()
		if n := reg.BlobGets(d.String()); n != 1 {
			t.Errorf("layer %s fetched %d times, want 1", d, n)
		}
		if _, err := os.Stat(filepath.Join(cache, "blobs", "sha256", d.Hex)); err != nil {
			t.Errorf("layer not cached: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(cache, "oci-layout")); err != nil {
		t.Errorf("cache is not an OCI layout: %v", err)
	}
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
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	real, err := filepath.EvalSymlinks(filepath.Join(u.Local, "a", "b", "x"))
	if err != nil {
		t.Fatal(err)
	}
	rootReal, _ := filepath.EvalSymlinks(u.Local)
	if real != filepath.Join(rootReal, "a") {
		t.Errorf("x resolves to %s, want %s", real, filepath.Join(rootReal, "a"))
	}
}

type countProgress struct {
	total, read int64
	done        bool
}

func (p *countProgress) Start(total int64) { p.total = total }
func (p *countProgress) Add(n int64)       { p.read += n }
func (p *countProgress) Done()             { p.done = true }
