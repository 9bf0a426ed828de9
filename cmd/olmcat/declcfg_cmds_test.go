package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// snapshotTree returns every file under dir with its content.
func snapshotTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	}))
	return files
}

func writeCatalogFile(t *testing.T, content string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "catalog.json"), []byte(content), 0o644))
	return dir
}

const opmManifests = "../../fixtures/legacy/opm-manifests/opm-migrate"

func TestValidateCommand(t *testing.T) {
	invalid := writeCatalogFile(t, `{"schema":"olm.package","name":"foo","defaultChannel":"beta"}
{"schema":"olm.channel","name":"stable","package":"foo","entries":[{"name":"foo.v1"}]}
{"schema":"olm.bundle","name":"foo.v1","package":"foo","image":"example.com/strimzi/operator@@sha256:abc","properties":[{"type":"olm.package","value":{"packageName":"foo","version":"1.0.0"}}]}`)
	broken := writeCatalogFile(t, `{"name":"no-schema"}`)

	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		// Nothing on stdout, as opm: the summary is on stderr.
		{"valid", []string{"validate", opmManifests}, 0,
			"", "OK: " + opmManifests + ": 3 packages, 7 channels, 10 bundles\n"},
		{"invalid", []string{"validate", invalid}, 1,
			`catalog.json#0: olm.package foo: default channel "beta" not found in the package's channels` + "\n" +
				`catalog.json#2: olm.bundle foo/foo.v1: invalid image "example.com/strimzi/operator@@sha256:abc": invalid reference format` + "\n",
			"Error: " + invalid + ": invalid catalog: 2 problem(s)\n"},
		{"unreadable", []string{"validate", broken}, 1,
			"load catalog.json: blob #0: missing root schema field\n", ""},
		{"missing dir", []string{"validate", filepath.Join(invalid, "nope")}, 1, "", ""},
		{"bad output flag", []string{"validate", opmManifests, "-o", "xml"}, 2, "", "Error: unknown output format \"xml\" (want text, json, junit or github)\n"},
		{"no argument", []string{"validate"}, 2, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tt.args...)
			assert.Equal(t, tt.wantCode, code, "stderr: %s", stderr)
			if tt.wantStdout != "" || tt.wantCode == 0 {
				assert.Equal(t, tt.wantStdout, stdout)
			}
			switch {
			case tt.wantCode == 0:
				// The summary follows the graph warnings.
				assert.True(t, strings.HasSuffix(stderr, tt.wantStderr), stderr)
			case tt.wantStderr != "":
				assert.Equal(t, tt.wantStderr, stderr)
			}
		})
	}

	// -o json for machines.
	stdout, _, code := runCLI(t, "validate", invalid, "-o", "json")
	require.Equal(t, 1, code)
	var rep struct {
		Valid    bool `json:"valid"`
		Bundles  int  `json:"bundles"`
		Problems []struct {
			File, Schema, Package, Name, Message string
		} `json:"problems"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
	assert.False(t, rep.Valid)
	assert.Equal(t, 1, rep.Bundles)
	require.Len(t, rep.Problems, 2)
	assert.Equal(t, "catalog.json#2", rep.Problems[1].File)
	assert.Equal(t, "foo.v1", rep.Problems[1].Name)

	stdout, _, code = runCLI(t, "validate", opmManifests, "-o", "json")
	require.Equal(t, 0, code)
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
	assert.True(t, rep.Valid)
	assert.Empty(t, rep.Problems)
}

func TestRenderCommand(t *testing.T) {
	// Rendering opm's per-package files gives them back as one stream.
	src := "../../fixtures/legacy/small-fbb/opm-migrate"
	var want strings.Builder
	files := snapshotTree(t, src)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		want.WriteString(files[n])
	}
	stdout, stderr, code := runCLI(t, "render", src)
	require.Equal(t, 0, code, stderr)
	require.True(t, want.String() == stdout, "render output differs from opm's files")

	// Several inputs merge; YAML output; a single file.
	stdout, _, code = runCLI(t, "render", src+"/foo", src+"/bar/catalog.json", "-o", "yaml")
	require.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(stdout, "---\ndefaultChannel: stable\nname: bar\nschema: olm.package\n"), stdout[:80])
	assert.Contains(t, stdout, "\nname: foo\nschema: olm.package\n")

	_, stderr, code = runCLI(t, "render", filepath.Join(src, "missing"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "render "+filepath.Join(src, "missing")+": stat")
	_, _, code = runCLI(t, "render", src, "-o", "toml")
	assert.Equal(t, 2, code)
	_, _, code = runCLI(t, "render")
	assert.Equal(t, 2, code)
}

func TestConvertCommand(t *testing.T) {
	// Work on a copy so the test can prove the input is left alone.
	in := filepath.Join(t.TempDir(), "in")
	for name, content := range snapshotTree(t, opmManifests) {
		p := filepath.Join(in, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	orig := snapshotTree(t, in)
	work := t.TempDir()
	objects := filepath.Join(work, "objects")
	back := filepath.Join(work, "back")

	_, stderr, code := runCLI(t, "convert", in, objects, "--layout", "objects")
	require.Equal(t, 0, code, stderr)
	tree := snapshotTree(t, objects)
	assert.Contains(t, tree, "etcd/etcd.json")
	assert.Contains(t, tree, "etcd/objects/etcdoperator.v0.9.2/etcdoperator.v0.9.2_operators.coreos.com_v1alpha1_clusterserviceversion.yaml")

	_, stderr, code = runCLI(t, "convert", objects, back, "--layout", "opm")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, orig, snapshotTree(t, back), "opm -> objects -> opm is byte-identical")
	assert.Equal(t, orig, snapshotTree(t, in), "input untouched")

	// No clobbering without --force; the existing output stays as it was.
	_, stderr, code = runCLI(t, "convert", in, objects, "--layout", "opm")
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "Error: output directory "+objects+" exists and is not empty (use --force to replace it)\n", stderr)
	assert.Equal(t, tree, snapshotTree(t, objects))
	_, stderr, code = runCLI(t, "convert", in, objects, "--layout", "opm", "-o", "yaml", "--force")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, snapshotTree(t, objects), "etcd/catalog.yaml")
	assert.NotContains(t, snapshotTree(t, objects), "etcd/etcd.json")

	// Overlapping directories and bad flags are usage errors.
	for _, args := range [][]string{
		{"convert", in, in, "--force"},
		{"convert", in, filepath.Join(in, "sub")},
		{"convert", in, filepath.Dir(in), "--force"},
		{"convert", in, filepath.Join(work, "x"), "--layout", "tree"},
		{"convert", in, filepath.Join(work, "x"), "-o", "toml"},
		{"convert", in},
	} {
		_, _, code := runCLI(t, args...)
		assert.Equal(t, 2, code, "%v", args)
	}
	assert.Equal(t, orig, snapshotTree(t, in), "input untouched")

	// Invalid input: exit 1, nothing written.
	bad := writeCatalogFile(t, `{"name":"x"}`)
	_, _, code = runCLI(t, "convert", bad, filepath.Join(work, "y"))
	assert.Equal(t, 1, code)
	assert.NoDirExists(t, filepath.Join(work, "y"))
}
