package declcfg

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/pathcheck"
)

func loadBlobs(t *testing.T, blobs ...string) *DeclarativeConfig {
	t.Helper()
	dir := writeTree(t, map[string]string{"c.json": strings.Join(blobs, "\n")})
	cfg, err := LoadDir(context.Background(), dir)
	require.NoError(t, err)
	return cfg
}

func objectProp(obj string) string {
	return `{"type":"olm.bundle.object","value":{"data":"` + base64.StdEncoding.EncodeToString([]byte(obj)) + `"}}`
}

func TestDirWriterNoClobberAndForce(t *testing.T) {
	cfg := loadBlobs(t, validFoo...)
	parent := t.TempDir()
	out := filepath.Join(parent, "out")

	// An absent or empty directory is fine.
	require.NoError(t, os.Mkdir(out, 0o755))
	require.NoError(t, WriteDir(cfg, out))
	assert.FileExists(t, filepath.Join(out, "foo", "catalog.json"))

	// Non-empty: refused, naming the directory, and nothing changes.
	marker := filepath.Join(out, "foo", "catalog.json")
	before, err := os.ReadFile(marker)
	require.NoError(t, err)
	other := loadBlobs(t, pkgBlob("bar", "s"), chBlob("bar", "s", entry("bar.v1")), bundleBlob("bar", "bar.v1", "1.0.0"))
	err = WriteDir(other, out)
	require.EqualError(t, err, "output directory "+out+" exists and is not empty")
	require.ErrorIs(t, err, pathcheck.ErrExists, "typed, for the caller to say how to replace it")
	after, err := os.ReadFile(marker)
	require.NoError(t, err)
	require.Equal(t, before, after)

	// Force replaces the whole directory.
	require.NoError(t, WriteDir(other, out, WithForce(true)))
	assert.NoFileExists(t, marker)
	assert.FileExists(t, filepath.Join(out, "bar", "catalog.json"))

	// A file is never replaced.
	file := filepath.Join(parent, "file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	require.EqualError(t, WriteDir(other, file, WithForce(true)), "output directory "+file+" exists and is not a directory")

	// No temporary directories are left behind.
	entries, err := os.ReadDir(parent)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"file", "out"}, names)
}

func TestDirWriterAbortAndDir(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	w, err := NewDirWriter(out)
	require.NoError(t, err)
	require.DirExists(t, w.Dir())
	require.Equal(t, filepath.Dir(out), filepath.Dir(filepath.Dir(w.Dir())), "temp dir beside the output")
	require.NoError(t, w.WritePackage(loadBlobs(t, validFoo...)))
	require.FileExists(t, filepath.Join(w.Dir(), "foo", "catalog.json"))
	require.NoDirExists(t, out, "nothing visible before Commit")
	require.NoError(t, w.Abort())
	require.NoError(t, w.Abort(), "idempotent")
	require.NoDirExists(t, w.Dir())
	require.NoDirExists(t, out)
	require.Error(t, w.Commit())

	w, err = NewDirWriter(out)
	require.NoError(t, err)
	require.NoError(t, w.WritePackage(loadBlobs(t, validFoo...)))
	err = w.WritePackage(loadBlobs(t, validFoo...))
	require.EqualError(t, err, `write package "foo": already written`)
	require.NoError(t, w.Commit())
	require.NoError(t, w.Abort(), "no-op after Commit")
	require.FileExists(t, filepath.Join(out, "foo", "catalog.json"))
}

func TestDirWriterRefusesMixedOrMissingPackages(t *testing.T) {
	w, err := NewDirWriter(filepath.Join(t.TempDir(), "out"))
	require.NoError(t, err)
	defer w.Abort()
	mixed := loadBlobs(t, pkgBlob("a", "s"), pkgBlob("b", "s"))
	require.EqualError(t, w.WritePackage(mixed), `write package: blobs of more than one package: "a", "b"`)
	global := loadBlobs(t, `{"schema":"custom","name":"x"}`)
	require.EqualError(t, w.WritePackage(global), "write package: blobs have no package (use WriteGlobal)")
	require.EqualError(t, w.WriteGlobal(loadBlobs(t, validFoo...)), `write package-less blobs: blobs belong to package "foo" (use WritePackage)`)
	_, err = NewDirWriter("x", WithLayout("tree"))
	require.EqualError(t, err, `unknown layout "tree" (want opm or objects)`)
	_, err = NewDirWriter("x", WithFormat("toml"))
	require.EqualError(t, err, `unknown output format "toml" (want json or yaml)`)
}

func TestWriteGlobalBlobs(t *testing.T) {
	cfg := loadBlobs(t, append(append([]string{}, validFoo...), `{"schema":"custom.global","name":"g","value":"<b>"}`)...)
	tests := []struct {
		layout Layout
		format Format
		file   string
		want   string
	}{
		{LayoutOPM, FormatJSON, "catalog.json", "{\n    \"schema\": \"custom.global\",\n    \"name\": \"g\",\n    \"value\": \"<b>\"\n}\n"},
		{LayoutOPM, FormatYAML, "catalog.yaml", "---\nname: g\nschema: custom.global\nvalue: <b>\n"},
		{LayoutObjects, FormatJSON, "__global.json", "{\n    \"schema\": \"custom.global\",\n    \"name\": \"g\",\n    \"value\": \"<b>\"\n}\n"},
	}
	for _, tt := range tests {
		t.Run(string(tt.layout)+"/"+string(tt.format), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			require.NoError(t, WriteDir(cfg, out, WithLayout(tt.layout), WithFormat(tt.format)))
			got, err := os.ReadFile(filepath.Join(out, tt.file))
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
	// No package-less blob, no global file.
	out := filepath.Join(t.TempDir(), "out")
	require.NoError(t, WriteDir(loadBlobs(t, validFoo...), out, WithLayout(LayoutObjects)))
	assert.NoFileExists(t, filepath.Join(out, "__global.json"))
	assert.NoFileExists(t, filepath.Join(out, "catalog.json"))
}

func TestObjectsLayoutFilesAndFallbacks(t *testing.T) {
	crd := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"foos.test"},"spec":{"group":"test"}}`
	csv := `{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"name":"foo.v0.2.0"},"spec":{"description":"a \u003cb\u003e c"}}`
	// Key order and number formats a YAML round trip would change.
	unsorted := `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm"},"data":{"ratio":"1"},"x":1.50}`
	dup := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"n":"2"}}`
	evil := `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"../../../etc/passwd"}}`
	yamlData := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml\n"
	cfg := loadBlobs(t,
		pkgBlob("foo", "stable"),
		chBlob("foo", "stable", entry("foo.v0.1.0"), entry("foo.v0.2.0", "foo.v0.1.0"), entry("../x", "foo.v0.2.0")),
		bundleBlob("foo", "foo.v0.1.0", "0.1.0"),
		bundleWith("foo", "foo.v0.2.0", "example.com/foo:v0.2.0", pkgProp("foo", "0.2.0"),
			objectProp(crd), objectProp(csv), objectProp(unsorted), objectProp(dup), objectProp(yamlData)),
		bundleWith("foo", "../x", "example.com/foo:x", pkgProp("foo", "0.3.0"), objectProp(evil)),
	)
	out := filepath.Join(t.TempDir(), "out")
	require.NoError(t, WriteDir(cfg, out, WithLayout(LayoutObjects)))

	files := readTree(t, out)
	assert.Equal(t, []string{
		"foo/.indexignore",
		"foo/foo.json",
		"foo/objects/..%2Fx/..%2F..%2F..%2Fetc%2Fpasswd__v1_secret.yaml",
		"foo/objects/foo.v0.2.0/cm__v1_configmap-2.yaml",
		"foo/objects/foo.v0.2.0/cm__v1_configmap.yaml",
		"foo/objects/foo.v0.2.0/foo.v0.2.0_operators.coreos.com_v1alpha1_clusterserviceversion.yaml",
		"foo/objects/foo.v0.2.0/foos.test_apiextensions.k8s.io_v1_customresourcedefinition.yaml",
	}, sortedKeys(files))
	assert.Equal(t, "/objects/\n", files["foo/.indexignore"])
	// YAML where it round-trips, the JSON text itself where it does not.
	assert.Equal(t, "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: foos.test\nspec:\n  group: test\n",
		files["foo/objects/foo.v0.2.0/foos.test_apiextensions.k8s.io_v1_customresourcedefinition.yaml"])
	assert.Equal(t, unsorted+"\n", files["foo/objects/foo.v0.2.0/cm__v1_configmap.yaml"])
	// The YAML-text object cannot be reproduced by a file: it stays inline.
	assert.Contains(t, files["foo/foo.json"], base64.StdEncoding.EncodeToString([]byte(yamlData)))
	assert.Contains(t, files["foo/foo.json"], `"ref": "objects/foo.v0.2.0/cm__v1_configmap-2.yaml"`)

	// Reading back gives the same config, bytes and all.
	back, err := LoadDir(context.Background(), out)
	require.NoError(t, err)
	var a, b bytes.Buffer
	require.NoError(t, WriteJSON(&a, cfg))
	require.NoError(t, WriteJSON(&b, back))
	require.Equal(t, a.String(), b.String())
	SortConfig(back)
	require.Equal(t, "foo.v0.2.0", back.Bundles[2].Name)
	require.Equal(t, cfg.Bundles[1].Objects, back.Bundles[2].Objects)
	require.Equal(t, cfg.Bundles[1].CsvJSON, back.Bundles[2].CsvJSON)
	require.Len(t, back.Bundles[2].Objects, 5)
}

func TestSafePathElement(t *testing.T) {
	tests := map[string]string{
		"etcd":           "etcd",
		"":               "%",
		".":              "%2E",
		"..":             "%2E%2E",
		"...":            "...",
		"a/b":            "a%2Fb",
		`a\b`:            "a%5Cb",
		"50%":            "50%25",
		"nul\x00x":       "nul%00x",
		"tab\tnewline\n": "tab%09newline%0A",
	}
	for in, want := range tests {
		assert.Equal(t, want, safePathElement(in), "%q", in)
	}
	long := safePathElement(strings.Repeat("a", 300))
	assert.LessOrEqual(t, len(long), 200)
	assert.NotEqual(t, long, safePathElement(strings.Repeat("a", 301)))
	assert.NotContains(t, safePathElement(strings.Repeat("/", 300)), "/")
}

func TestPackageDirsAreSafe(t *testing.T) {
	cfg := loadBlobs(t,
		pkgBlob("../escape", "s"), chBlob("../escape", "s", entry("e.v1")), bundleBlob("../escape", "e.v1", "1.0.0"),
		pkgBlob("..", "s"), chBlob("..", "s", entry("d.v1")), bundleBlob("..", "d.v1", "1.0.0"),
	)
	for _, layout := range []Layout{LayoutOPM, LayoutObjects} {
		parent := t.TempDir()
		out := filepath.Join(parent, "out")
		require.NoError(t, WriteDir(cfg, out, WithLayout(layout)))
		entries, err := os.ReadDir(parent)
		require.NoError(t, err)
		require.Len(t, entries, 1, "nothing written beside the output")
		files := readTree(t, out)
		if layout == LayoutOPM {
			assert.Equal(t, []string{"%2E%2E/catalog.json", "..%2Fescape/catalog.json"}, sortedKeys(files))
		} else {
			assert.Equal(t, []string{"%2E%2E/%2E%2E.json", "..%2Fescape/..%2Fescape.json"}, sortedKeys(files))
		}
		back, err := LoadDir(context.Background(), out)
		require.NoError(t, err)
		var a, b bytes.Buffer
		require.NoError(t, WriteJSON(&a, cfg))
		require.NoError(t, WriteJSON(&b, back))
		require.Equal(t, a.String(), b.String())
	}
}

func TestDirWriterConcurrentDeterministic(t *testing.T) {
	var blobs []string
	for i := 0; i < 30; i++ {
		p := fmt.Sprintf("pkg-%02d", i)
		blobs = append(blobs, pkgBlob(p, "s"), chBlob(p, "s", entry(p+".v1"), entry(p+".v2", p+".v1")),
			bundleWith(p, p+".v1", "example.com/"+p+":v1", pkgProp(p, "1.0.0"), objectProp(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`)),
			bundleBlob(p, p+".v2", "2.0.0"))
	}
	cfg := loadBlobs(t, blobs...)
	for _, layout := range []Layout{LayoutOPM, LayoutObjects} {
		var trees []map[string]string
		for run := 0; run < 2; run++ {
			out := filepath.Join(t.TempDir(), "out")
			w, err := NewDirWriter(out, WithLayout(layout), WithFormat(FormatYAML))
			require.NoError(t, err)
			var wg sync.WaitGroup
			errs := make(chan error, 30)
			for _, pc := range SplitByPackage(cfg) {
				wg.Add(1)
				go func() { defer wg.Done(); errs <- w.WritePackage(pc) }()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				require.NoError(t, err)
			}
			require.NoError(t, w.Commit())
			trees = append(trees, readTree(t, out))
		}
		require.Equal(t, trees[0], trees[1])
	}
}

func TestWriteYAMLForm(t *testing.T) {
	cfg := loadBlobs(t, validFoo[:2]...)
	var buf bytes.Buffer
	require.NoError(t, WriteYAML(&buf, cfg))
	assert.Equal(t, `---
defaultChannel: stable
name: foo
schema: olm.package
---
entries:
- name: foo.v0.1.0
- name: foo.v0.2.0
  replaces: foo.v0.1.0
name: stable
package: foo
schema: olm.channel
`, buf.String())
	// And it loads back to the same blobs.
	back := loadBlobsYAML(t, buf.String())
	var a, b bytes.Buffer
	require.NoError(t, WriteJSON(&a, cfg))
	require.NoError(t, WriteJSON(&b, back))
	assert.Equal(t, a.String(), b.String())
}

func loadBlobsYAML(t *testing.T, text string) *DeclarativeConfig {
	t.Helper()
	dir := writeTree(t, map[string]string{"c.yaml": text})
	cfg, err := LoadDir(context.Background(), dir)
	require.NoError(t, err)
	return cfg
}

func TestSortConfigAndWriteOrder(t *testing.T) {
	cfg := loadBlobs(t,
		`{"schema":"custom.z","package":"b","name":"z"}`,
		`{"schema":"olm.deprecations","package":"b","entries":[]}`,
		`{"schema":"custom.global"}`,
		bundleBlob("b", "b.v2", "2.0.0"),
		bundleBlob("b", "b.v1", "1.0.0"),
		chBlob("b", "z", entry("b.v2"), entry("b.v1")),
		chBlob("b", "a", entry("b.v1")),
		`{"schema":"custom.a","package":"b","name":"a"}`,
		pkgBlob("b", "a"),
		pkgBlob("a", "s"),
	)
	var order []string
	require.NoError(t, forEachBlob(cfg, streamOptions{}, func(v any) error { order = append(order, describeBlob(v)); return nil }))
	want := []string{
		`olm.package "a"`,
		`olm.package "b"`, "olm.channel b/a", "olm.channel b/z", "olm.bundle b/b.v1", "olm.bundle b/b.v2",
		"custom.a b/a", "custom.z b/z", "olm.deprecations b",
		"custom.global /",
	}
	assert.Equal(t, want, order)
	// forEachBlob sorts entries in what it writes, not in cfg.
	assert.Equal(t, "b.v2", cfg.Channels[0].Entries[0].Name)

	SortConfig(cfg)
	assert.Equal(t, "a", cfg.Packages[0].Name)
	assert.Equal(t, []string{"a", "z"}, []string{cfg.Channels[0].Name, cfg.Channels[1].Name})
	assert.Equal(t, "b.v1", cfg.Channels[1].Entries[0].Name)
	assert.Equal(t, []string{"b.v1", "b.v2"}, []string{cfg.Bundles[0].Name, cfg.Bundles[1].Name})
	assert.Equal(t, []string{"custom.global", "custom.a", "custom.z"}, []string{cfg.Others[0].Schema, cfg.Others[1].Schema, cfg.Others[2].Schema})
}
