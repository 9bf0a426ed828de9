package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUnknownCommandSuggestions: a typo within two edits of a command
// gets a suggestion at every level of the tree, not only a prefix.
func TestUnknownCommandSuggestions(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"servee"}, "did you mean serve?"},
		{[]string{"valdate", "x"}, "did you mean validate?"},
		{[]string{"bundle", "unpak"}, "did you mean unpack?"},
		{[]string{"alpha", "lst"}, "did you mean list?"},
		{[]string{"alpha", "bundle", "genrate"}, "did you mean generate?"},
		{[]string{"index", "ad"}, "did you mean add or rm?"},
	} {
		t.Run(tc.args[len(tc.args)-1], func(t *testing.T) {
			_, stderr, code := runCLI(t, tc.args...)
			assert.Equal(t, exitUsage, code, stderr)
			assert.Contains(t, stderr, tc.want)
		})
	}
}

// TestWrongArgumentCountPrintsUsage: a wrong number of arguments says
// which arguments the command takes, not only how many it got.
func TestWrongArgumentCountPrintsUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"parity"}, "accepts 2 arg(s), received 0\nUsage: olmcat parity "},
		{[]string{"migrate", "x"}, "accepts 2 arg(s), received 1\nUsage: olmcat migrate "},
		{[]string{"render"}, "Usage: olmcat render "},
		{[]string{"unpack"}, "Usage: olmcat unpack "},
		{[]string{"alpha", "list", "packages"}, "Usage: olmcat alpha list packages "},
		{[]string{"alpha", "render-template", "a", "b", "c"}, "Usage: olmcat alpha render-template "},
		{[]string{"index", "add", "x"}, "Usage: olmcat index add "},
	} {
		t.Run(tc.args[len(tc.args)-1], func(t *testing.T) {
			_, stderr, code := runCLI(t, tc.args...)
			assert.Equal(t, exitUsage, code, stderr)
			assert.Contains(t, stderr, tc.want)
		})
	}
}

// TestExistingOutputRefusalsExit2: an output that exists without
// --force is a usage error (exit 2) for every writer, as a missing
// flag is.
func TestExistingOutputRefusalsExit2(t *testing.T) {
	from, err := filepath.Abs(filepath.Join(legacyFixtures, "small-fbb", "opm-migrate"))
	require.NoError(t, err)
	bundle, err := filepath.Abs("../../fixtures/bundles/small-fbb/foo-bundle-v0.1.0")
	require.NoError(t, err)
	work := t.TempDir()
	t.Chdir(work)
	t.Setenv(noDeprecationWarningEnv, "1")
	require.NoError(t, os.WriteFile("index.Dockerfile", nil, 0o644))
	_, stderr, code := runCLI(t, "index", "add", "-f", from, "-b", bundle, "--generate", "-i", "o.example/opm:1")
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, stderr, "index.Dockerfile exists")

	require.NoError(t, os.Mkdir("catalog", 0o755))
	require.NoError(t, os.WriteFile("catalog.Dockerfile", nil, 0o644))
	_, stderr, code = runCLI(t, "generate", "dockerfile", "catalog", "-i", "o.example/opm:1")
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, stderr, "file already exists")
	assert.NotContains(t, stderr, "--force", "generate dockerfile has no --force")

	// Not an existing output but the same kind of mistake: a missing
	// required flag.
	_, stderr, code = runCLI(t, "alpha", "bundle", "generate", "-d", filepath.Join(bundle, "manifests"))
	assert.Equal(t, exitUsage, code, stderr)
}
