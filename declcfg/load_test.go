package declcfg

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeTree creates files (slash paths -> content) under a new temp dir.
func writeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return dir
}

func TestLoadFSFormatsOrderAndOrigins(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"b/catalog.yaml": "---\nschema: olm.package\nname: b\ndefaultChannel: s\n---\n# only a comment\n---\nschema: olm.channel\npackage: b\nname: s\nentries:\n- name: b.v1\n",
		"a/catalog.json": pkgBlob("a", "s") + "\n" + chBlob("a", "s", entry("a.v1")),
		"c/extra.yml":    "schema: custom.thing\npackage: c\nname: x\nvalue: {num: 1}\n",
		"notes.txt":      "not a catalog file",
		"README.md":      "# nor this",
	})
	cfg, err := LoadDir(context.Background(), dir)
	require.NoError(t, err)
	require.Len(t, cfg.Packages, 2)
	assert.Equal(t, "a", cfg.Packages[0].Name)
	assert.Equal(t, Origin{File: "a/catalog.json", Index: 0}, cfg.Packages[0].Origin)
	assert.Equal(t, Origin{File: "b/catalog.yaml", Index: 0}, cfg.Packages[1].Origin)
	require.Len(t, cfg.Channels, 2)
	assert.Equal(t, Origin{File: "b/catalog.yaml", Index: 1}, cfg.Channels[1].Origin, "empty YAML documents do not count")
	require.Len(t, cfg.Others, 1)
	assert.Equal(t, Meta{Schema: "custom.thing", Package: "c", Name: "x",
		Blob:   []byte(`{"name":"x","package":"c","schema":"custom.thing","value":{"num":1}}`),
		Origin: Origin{File: "c/extra.yml"}}, cfg.Others[0])
}

func TestLoadFSDeterministicAcrossConcurrency(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 40; i++ {
		p := string(rune('a'+i%26)) + string(rune('a'+i/26))
		files[p+"/catalog.json"] = pkgBlob(p, "s") + chBlob(p, "s", entry(p+".v1")) + bundleBlob(p, p+".v1", "1.0.0")
	}
	dir := writeTree(t, files)
	one, err := LoadDir(context.Background(), dir, WithConcurrency(1))
	require.NoError(t, err)
	many, err := LoadDir(context.Background(), dir, WithConcurrency(16))
	require.NoError(t, err)
	require.Equal(t, one, many)
	var a, b bytes.Buffer
	require.NoError(t, WriteJSON(&a, one))
	require.NoError(t, WriteJSON(&b, many))
	require.Equal(t, a.String(), b.String())
}

func TestLoadFSIndexIgnore(t *testing.T) {
	dir := writeTree(t, map[string]string{
		".indexignore":             "# top level\n*.yaml\nskipdir/\n",
		"keep/catalog.json":        pkgBlob("keep", "s"),
		"keep/also.yaml":           "not: [valid",
		"skipdir/catalog.json":     "garbage",
		"sub/.indexignore":         "/local.json\n",
		"sub/local.json":           "garbage",
		"sub/deeper/local.json":    pkgBlob("deeper", "s"),
		"other/local.json":         pkgBlob("other", "s"),
		"sub/deeper/.indexignore":  "",
		"other/objects/x.json":     "garbage",
		"other/.indexignore":       "objects/\n",
		"top.json":                 pkgBlob("top", "s"),
		"negated/.indexignore":     "*.json\n!want.json\n",
		"negated/want.json":        pkgBlob("negated", "s"),
		"negated/dropped.json":     "garbage",
		".indexignore.json":        "garbage (ignored by *.json? no: matched as a file name pattern below)",
		"second/.indexignore":      ".indexignore.json\n",
		"second/.indexignore.json": "garbage",
	})
	// The root .indexignore.json is a catalog file: make it valid.
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".indexignore.json"), []byte(pkgBlob("dot", "s")), 0o644))
	cfg, err := LoadDir(context.Background(), dir)
	require.NoError(t, err)
	var names []string
	for _, p := range cfg.Packages {
		names = append(names, p.Name+"@"+p.Origin.File)
	}
	assert.Equal(t, []string{
		"dot@.indexignore.json",
		"keep@keep/catalog.json",
		"negated@negated/want.json",
		"other@other/local.json",
		"deeper@sub/deeper/local.json",
		"top@top.json",
	}, names)
}

func TestLoadFSErrorsNameFileAndBlob(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"missing schema", map[string]string{"p/catalog.json": pkgBlob("p", "s") + `{"name":"x"}`},
			"load p/catalog.json: blob #1: missing root schema field"},
		{"missing schema in YAML", map[string]string{"p/c.yaml": "schema: olm.package\nname: p\n---\nname: x\n"},
			"load p/c.yaml: blob #1: missing root schema field"},
		{"keys folding to the same name", map[string]string{"p/c.json": `{"schema":"olm.package","Name":"a","name":"b"}`},
			`load p/c.json: blob #0: duplicate keys "Name" and "name"`},
		{"schema not a string", map[string]string{"p/c.json": `{"schema":5}`},
			`load p/c.json: blob #0: key "schema": must be a string`},
		{"not an object", map[string]string{"p/c.json": `{"schema":"olm.package","name":"a"} [1,2]`},
			"load p/c.json: blob #1: not a JSON object: [1,2]"},
		{"YAML list document", map[string]string{"p/c.yaml": "- a\n- b\n"},
			"load p/c.yaml: YAML document #0: not an object: [\"a\",\"b\"]"},
		{"wrong field type", map[string]string{"p/c.json": `{"schema":"olm.channel","name":"s","package":"p","entries":"x"}`},
			`load p/c.json: blob #0: decode olm.channel "s": json: cannot unmarshal string into Go struct field Channel.entries of type []declcfg.ChannelEntry`},
		{"ref escapes the root", map[string]string{"p/c.json": bundleWith("p", "p.v1", "", `{"type":"olm.bundle.object","value":{"ref":"../../etc/passwd"}}`)},
			`load p/c.json: blob #0: olm.bundle "p.v1": property #0: ref "../../etc/passwd": escapes the catalog root`},
		{"absolute ref", map[string]string{"p/c.json": bundleWith("p", "p.v1", "", `{"type":"olm.bundle.object","value":{"ref":"/etc/passwd"}}`)},
			`load p/c.json: blob #0: olm.bundle "p.v1": property #0: ref "/etc/passwd": must be a relative slash-separated path`},
		{"missing ref", map[string]string{"p/c.json": bundleWith("p", "p.v1", "", `{"type":"olm.bundle.object","value":{"ref":"objects/none.yaml"}}`)},
			`load p/c.json: blob #0: olm.bundle "p.v1": property #0: ref "objects/none.yaml": openat p/objects/none.yaml: no such file or directory`},
		{"data and ref", map[string]string{"p/c.json": bundleWith("p", "p.v1", "", `{"type":"olm.bundle.object","value":{"ref":"x.yaml","data":"e30="}}`)},
			`load p/c.json: blob #0: olm.bundle "p.v1": property #0: olm.bundle.object must set one of data and ref, not both`},
		{"object not JSON or YAML", map[string]string{"p/c.json": bundleWith("p", "p.v1", "", `{"type":"olm.bundle.object","value":{"data":"`+base64.StdEncoding.EncodeToString([]byte("[1, 2"))+`"}}`)},
			`load p/c.json: blob #0: olm.bundle "p.v1": property #0: olm.bundle.object: object is neither JSON nor YAML: yaml: line 1: did not find expected ',' or ']'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTree(t, tt.files)
			_, err := LoadDir(context.Background(), dir)
			require.EqualError(t, err, tt.want)
			_, err = LoadDir(context.Background(), dir, WithLeanBundles())
			require.EqualError(t, err, tt.want, "lean")
		})
	}
}

func TestLoadFSRefThroughSymlinkOutsideRoot(t *testing.T) {
	outside := writeTree(t, map[string]string{"secret.yaml": "kind: Secret\n"})
	dir := writeTree(t, map[string]string{
		"p/c.json":       bundleWith("p", "p.v1", "", `{"type":"olm.bundle.object","value":{"ref":"objects/link.yaml"}}`),
		"p/.indexignore": "objects/\n",
	})
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "p", "objects"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.yaml"), filepath.Join(dir, "p", "objects", "link.yaml")))
	_, err := LoadDir(context.Background(), dir)
	require.ErrorContains(t, err, `load p/c.json: blob #0: olm.bundle "p.v1": property #0: ref "objects/link.yaml": `)
	require.ErrorContains(t, err, "path escapes from parent")

	// A symlinked catalog file pointing outside is refused too.
	dir2 := writeTree(t, map[string]string{})
	require.NoError(t, os.WriteFile(filepath.Join(outside, "c.json"), []byte(pkgBlob("x", "s")), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(outside, "c.json"), filepath.Join(dir2, "c.json")))
	_, err = LoadDir(context.Background(), dir2)
	require.ErrorContains(t, err, "path escapes from parent")

	// A symlink inside the root is followed.
	dir3 := writeTree(t, map[string]string{
		"p/c.json":        bundleWith("p", "p.v1", "", `{"type":"olm.bundle.object","value":{"ref":"objects/link.yaml"}}`),
		"shared/cm.yaml":  "kind: ConfigMap\nmetadata: {name: x}\n",
		"p/objects/.keep": "",
		".indexignore":    "objects/\nshared/\n",
	})
	require.NoError(t, os.Symlink("../../shared/cm.yaml", filepath.Join(dir3, "p", "objects", "link.yaml")))
	cfg, err := LoadDir(context.Background(), dir3)
	require.NoError(t, err)
	require.Equal(t, []string{`{"kind":"ConfigMap","metadata":{"name":"x"}}`}, cfg.Bundles[0].Objects)
}

func TestLoadBundleObjects(t *testing.T) {
	csv := `{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"name":"p.v1"}}`
	crd := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"ps.test"}}`
	dir := writeTree(t, map[string]string{
		"p/c.json": bundleWith("p", "p.v1", "",
			`{"type":"olm.bundle.object","value":{"ref":"objects/crd.yaml"}}`,
			`{"type":"olm.bundle.object","value":{"data":"`+base64.StdEncoding.EncodeToString([]byte(csv))+`"}}`,
		) + bundleWith("p", "p.v2", "example.com/p:v2", `{"type":"olm.csv.metadata","value":{"displayName":"P"}}`),
		"p/.indexignore":     "/objects/\n",
		"p/objects/crd.yaml": "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: ps.test\n",
	})
	cfg, err := LoadDir(context.Background(), dir)
	require.NoError(t, err)
	b := cfg.Bundles[0]
	assert.Equal(t, []string{crd, csv}, b.Objects)
	assert.Equal(t, csv, b.CsvJSON)
	// The ref was inlined: the loaded bundle no longer depends on the layout.
	assert.Equal(t, Property{Type: PropertyBundleObject, Value: []byte(`{"data":"` + base64.StdEncoding.EncodeToString([]byte(crd)) + `"}`)}, b.Properties[0])
	assert.Empty(t, cfg.Bundles[1].Objects)
	assert.Empty(t, cfg.Bundles[1].CsvJSON)

	one, err := LoadDir(context.Background(), dir, WithFile("p/c.json"))
	require.NoError(t, err)
	assert.Equal(t, cfg, one)
	_, err = LoadDir(context.Background(), dir, WithFile("../c.json"))
	require.ErrorContains(t, err, "not inside the catalog root")
}

func TestLoadFSNotADirectory(t *testing.T) {
	dir := writeTree(t, map[string]string{"f.json": "{}"})
	_, err := LoadDir(context.Background(), filepath.Join(dir, "f.json"))
	require.EqualError(t, err, "open catalog "+filepath.Join(dir, "f.json")+": not a directory")
	_, err = LoadDir(context.Background(), filepath.Join(dir, "none"))
	require.ErrorContains(t, err, "no such file or directory")
}

func TestLoadFSCancelled(t *testing.T) {
	dir := writeTree(t, map[string]string{"a.json": pkgBlob("a", "s")})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := LoadDir(ctx, dir)
	require.ErrorIs(t, err, context.Canceled)
}

func TestLoadFSReportsFirstBadFileInOrder(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 30; i++ {
		files[fmt.Sprintf("p%02d/catalog.json", i)] = pkgBlob(fmt.Sprintf("p%02d", i), "s")
	}
	files["p07/catalog.json"] = `{"name":"x"}`
	files["p03/catalog.json"] = pkgBlob("p03", "s") + `{"name":"y"}`
	files["p21/catalog.json"] = `{"name":"z"}`
	dir := writeTree(t, files)
	for i := 0; i < 20; i++ {
		_, err := LoadDir(context.Background(), dir, WithConcurrency(8))
		require.EqualError(t, err, "load p03/catalog.json: blob #1: missing root schema field")
	}
}
