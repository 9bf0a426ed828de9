package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostile is a name that, printed raw, colours the terminal, moves the
// cursor back and forges a line of its own.
const hostile = "b\x1b[31mRED\r\nnext: forged"

// writeBlobs writes blobs as the catalog file pkg/catalog.json of a new
// catalog directory and returns the directory.
func writeBlobs(t *testing.T, pkg string, blobs ...map[string]any) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "catalog")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, pkg), 0o755))
	var lines []string
	for _, b := range blobs {
		data, err := json.Marshal(b)
		require.NoError(t, err)
		lines = append(lines, string(data))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, pkg, "catalog.json"), []byte(strings.Join(lines, "\n")), 0o644))
	return dir
}

// namedBundleBlob is an olm.bundle blob of package pkg at version.
func namedBundleBlob(pkg, name, version, image string) map[string]any {
	return map[string]any{"schema": "olm.bundle", "package": pkg, "name": name, "image": image,
		"properties": []any{map[string]any{"type": "olm.package", "value": map[string]any{"packageName": pkg, "version": version}}}}
}

// TestHostileNamesQuoted: every text output that prints a catalog name
// quotes it (%q, as opm) when it holds control characters or newlines:
// no escape sequence reaches the terminal and no line is forged.
func TestHostileNamesQuoted(t *testing.T) {
	t.Setenv(noDeprecationWarningEnv, "1")
	pkg := map[string]any{"schema": "olm.package", "name": "foo", "defaultChannel": "beta"}
	channel := func(name string, entries ...string) map[string]any {
		var es []any
		for _, e := range entries {
			es = append(es, map[string]any{"name": e})
		}
		return map[string]any{"schema": "olm.channel", "package": "foo", "name": name, "entries": es}
	}
	listed := writeBlobs(t, "foo", pkg, channel("beta", hostile), channel("beta"+hostile, hostile), namedBundleBlob("foo", hostile, "0.0.1", "example.com/b:1"))
	changed := writeBlobs(t, "foo", pkg, channel("beta", hostile), channel("beta"+hostile, hostile), namedBundleBlob("foo", hostile, "0.0.1", "example.com/b:2"))
	stranded := writeBlobs(t, "foo", pkg, channel("beta", "foo.v0.0.1"), namedBundleBlob("foo", "foo.v0.0.1", "0.0.1", "example.com/a:1"), namedBundleBlob("foo", hostile, "0.0.2", "example.com/b:1"))
	badPkg := writeBlobs(t, "foo", map[string]any{"schema": "olm.package", "name": "a" + hostile})
	twoHeads := writeBlobs(t, "foo", pkg, channel("beta", hostile, hostile+"2"), namedBundleBlob("foo", hostile, "0.0.1", "example.com/b:1"),
		namedBundleBlob("foo", hostile+"2", "0.0.2", "example.com/b:2"))
	addTo := writeBlobs(t, "foo", pkg, channel("beta", hostile), namedBundleBlob("foo", hostile, "0.0.1", "example.com/b:1"))
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"validate", []string{"validate", badPkg}},
		{"load error", []string{"alpha", "list", "packages", badPkg}},
		{"alpha list channels", []string{"alpha", "list", "channels", listed}},
		{"graph error", []string{"validate", twoHeads}},
		{"alpha list bundles", []string{"alpha", "list", "bundles", listed}},
		{"parity", []string{"parity", listed, changed}},
		{"registry prune-stranded", []string{"registry", "prune-stranded", "-d", stranded, "--output", filepath.Join(t.TempDir(), "out")}},
		{"add", []string{"add", addTo, filepath.Join(fixtureBundles, "small-fbb", "foo-bundle-v0.1.0"), "--mode", "semver"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, _ := runCLI(t, tc.args...)
			out := stdout + stderr
			assert.Contains(t, out, `\x1b[31mRED\r\nnext: forged"`, "the name is printed, quoted")
			assert.NotContains(t, out, "\x1b", "an escape sequence reached the terminal")
			assert.NotContains(t, out, "\r", "a carriage return reached the terminal")
			for _, l := range strings.Split(out, "\n") {
				assert.False(t, strings.HasPrefix(l, "next: forged"), "a forged line: %q", l)
			}
		})
	}
}
