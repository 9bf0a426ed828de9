package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const fbbDeprecated = "../../fixtures/legacy/small-fbb-deprecated"

func TestGraphCommand(t *testing.T) {
	catalog := filepath.Join(fbbDeprecated, "opm-migrate")
	db := filepath.Join(fbbDeprecated, "index.db")
	t.Run("svg of a catalog", func(t *testing.T) {
		out, _, code := runCLI(t, "graph", catalog, "--package", "foo", "-o", "svg")
		require.Equal(t, 0, code)
		var v struct{}
		require.NoError(t, xml.Unmarshal([]byte(out), &v))
		assert.Contains(t, out, `data-channel="beta"`)
		assert.NotContains(t, out, `data-package="bar"`)
	})
	t.Run("mermaid of an index.db equals that of its migration", func(t *testing.T) {
		fromDB, stderr, code := runCLI(t, "graph", db, "-o", "mermaid", "--no-deprecation-warning")
		require.Equal(t, 0, code, stderr)
		fromCatalog, _, code := runCLI(t, "graph", catalog, "-o", "mermaid")
		require.Equal(t, 0, code)
		assert.Equal(t, fromCatalog, fromDB)
		assert.True(t, strings.HasPrefix(fromDB, "graph LR\n"))
	})
	t.Run("one package of an index.db converts only that package", func(t *testing.T) {
		fromDB, stderr, code := runCLI(t, "graph", db, "--package", "foo", "-o", "svg", "--no-deprecation-warning")
		require.Equal(t, 0, code, stderr)
		fromCatalog, _, code := runCLI(t, "graph", catalog, "--package", "foo", "-o", "svg")
		require.Equal(t, 0, code)
		assert.Equal(t, fromCatalog, fromDB)
	})
	t.Run("dot and html", func(t *testing.T) {
		out, _, code := runCLI(t, "graph", catalog, "--channel", "stable", "-o", "dot")
		require.Equal(t, 0, code)
		assert.Contains(t, out, "digraph upgrades {")
		out, _, code = runCLI(t, "graph", catalog, "-o", "html")
		require.Equal(t, 0, code)
		assert.Contains(t, out, "<!DOCTYPE html>")
		assert.Equal(t, 3, strings.Count(out, `<details class="package"`))
	})
	t.Run("bad usage", func(t *testing.T) {
		_, stderr, code := runCLI(t, "graph", catalog, "-o", "png")
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, stderr, `unknown output format "png"`)
		_, stderr, code = runCLI(t, "graph", catalog, "--package", "nope")
		assert.Equal(t, exitInvalid, code)
		assert.Contains(t, stderr, `package "nope" not found`)
	})
}

func TestReportHTML(t *testing.T) {
	db := filepath.Join(fbbDeprecated, "index.db")
	t.Run("migrate writes the page; same bytes twice", func(t *testing.T) {
		dir := t.TempDir()
		page := filepath.Join(dir, "report.html")
		_, stderr, code := runCLI(t, "migrate", db, filepath.Join(dir, "out"), "--report-html", page, "--no-deprecation-warning")
		require.Equal(t, 0, code, stderr)
		first, err := os.ReadFile(page)
		require.NoError(t, err)
		assert.Regexp(t, `class="node deprecated[^"]* dropped" data-name="foo.v0.2.0"`, string(first))
		_, stderr, code = runCLI(t, "migrate", db, filepath.Join(dir, "out"), "--report-html", page, "--force", "--no-deprecation-warning")
		require.Equal(t, 0, code, stderr)
		second, err := os.ReadFile(page)
		require.NoError(t, err)
		assert.Equal(t, string(first), string(second))
	})
	t.Run("report paths are checked before anything is written", func(t *testing.T) {
		dir := t.TempDir()
		out := filepath.Join(dir, "out")
		require.NoError(t, os.Mkdir(out, 0o755))
		existing := filepath.Join(dir, "existing.html")
		require.NoError(t, os.WriteFile(existing, []byte("keep"), 0o644))
		for _, tc := range []struct{ page, want string }{
			{db, "overlaps"},
			{filepath.Join(out, "r.html"), "overlaps"},
			{existing, "exists (pass --force"},
			{filepath.Join(dir, "missing", "r.html"), "does not exist"},
			// A directory nobody can create files in (not even root): refused
			// before the output is committed, not after.
			{"/proc/olmcat-report.html", "cannot write"},
		} {
			_, stderr, code := runCLI(t, "migrate", db, out, "--report-html", tc.page, "--no-deprecation-warning")
			assert.Equal(t, exitUsage, code, tc.page)
			assert.Contains(t, stderr, tc.want, tc.page)
		}
		// The JSON report follows the same rules (one reportFile for both).
		_, stderr, code := runCLI(t, "migrate", db, out, "--report", existing, "--no-deprecation-warning")
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, stderr, "exists (pass --force")
		entries, err := os.ReadDir(out)
		require.NoError(t, err)
		assert.Empty(t, entries, "nothing was migrated")
		kept, err := os.ReadFile(existing)
		require.NoError(t, err)
		assert.Equal(t, "keep", string(kept))
	})
	t.Run("parity writes the page", func(t *testing.T) {
		dir := t.TempDir()
		page := filepath.Join(dir, "parity.html")
		_, stderr, code := runCLI(t, "parity", db, filepath.Join(fbbDeprecated, "opm-migrate"), "--report-html", page, "--no-deprecation-warning")
		require.Equal(t, 0, code, stderr)
		data, err := os.ReadFile(page)
		require.NoError(t, err)
		assert.Contains(t, string(data), `data-rule="plural-sqlite-only"`)
		assert.Contains(t, string(data), `data-rpc="GetBundle"`)
		_, stderr, code = runCLI(t, "parity", db, filepath.Join(fbbDeprecated, "opm-migrate"), "--report-html", filepath.Join(fbbDeprecated, "opm-migrate", "x.html"))
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, stderr, "overlaps")
	})
}

// TestReadmePicture keeps the SVG the README shows what the command it
// names prints today.
func TestReadmePicture(t *testing.T) {
	out, stderr, code := runCLI(t, "graph", "../../fixtures/legacy/opm-manifests/index.db", "--package", "etcd", "-o", "svg", "--no-deprecation-warning")
	require.Equal(t, 0, code, stderr)
	committed, err := os.ReadFile("../../fixtures/graphs/etcd.svg")
	require.NoError(t, err)
	assert.Equal(t, string(committed), out, "regenerate fixtures/graphs/etcd.svg with the command in README.md")
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	assert.Contains(t, string(readme), "olmcat graph fixtures/legacy/opm-manifests/index.db --package etcd -o svg > fixtures/graphs/etcd.svg")
	assert.Contains(t, string(readme), "](fixtures/graphs/etcd.svg)")
}

// TestValidateWarnings: validate lists the graph warnings the pictures
// draw (on stderr, the catalog stays valid) and in -o json.
func TestValidateWarnings(t *testing.T) {
	catalog := "../../fixtures/legacy/opm-manifests/opm-migrate"
	_, stderr, code := runCLI(t, "validate", catalog)
	require.Equal(t, 0, code)
	assert.Contains(t, stderr, `warning: etcd/catalog.json#1: olm.channel etcd/alpha: entry "etcdoperator.v0.9.2" skips "etcdoperator.v0.9.1", which is not in the channel`)
	assert.Contains(t, stderr, `skipRange "< 0.6.0" matches no other bundle of the channel`)
	out, _, code := runCLI(t, "validate", catalog, "-o", "json")
	require.Equal(t, 0, code)
	assert.Contains(t, out, `"warnings": [`)
	svg, _, code := runCLI(t, "graph", catalog, "--package", "etcd", "--channel", "alpha", "-o", "svg")
	require.Equal(t, 0, code)
	assert.Contains(t, svg, `warning: entry &quot;etcdoperator.v0.9.2&quot; skips &quot;etcdoperator.v0.9.1&quot;, which is not in the channel`)
}
