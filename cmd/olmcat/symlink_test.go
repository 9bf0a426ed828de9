package main

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/registry/api"
)

// symlinkedCatalog builds small-fbb's catalog with package baz reached
// through a symlinked directory that stays inside the root (its real copy
// is under an .indexignore'd folder), and a second root whose package dir
// links outside it.
func symlinkedCatalog(t *testing.T) (inside, escaping string) {
	t.Helper()
	src := filepath.Join(legacyFixtures, "small-fbb", "opm-migrate")
	work := t.TempDir()
	inside = filepath.Join(work, "inside")
	copyTree(t, filepath.Join(src, "foo"), filepath.Join(inside, "foo"))
	copyTree(t, filepath.Join(src, "bar"), filepath.Join(inside, "bar"))
	copyTree(t, filepath.Join(src, "baz"), filepath.Join(inside, "store", "baz"))
	require.NoError(t, os.WriteFile(filepath.Join(inside, ".indexignore"), []byte("store/\n"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join("store", "baz"), filepath.Join(inside, "baz")))

	escaping = filepath.Join(work, "escaping")
	copyTree(t, filepath.Join(src, "foo"), filepath.Join(escaping, "foo"))
	copyTree(t, filepath.Join(src, "baz"), filepath.Join(work, "outside", "baz"))
	require.NoError(t, os.Symlink(filepath.Join("..", "outside", "baz"), filepath.Join(escaping, "baz")))
	return inside, escaping
}

// TestSymlinkedDirectories: validate, render, convert and serve follow a
// symlinked package directory that stays inside the root, and refuse one
// that leaves it, naming the link (never skipping it without a word).
func TestSymlinkedDirectories(t *testing.T) {
	inside, escaping := symlinkedCatalog(t)

	stdout, stderr, code := runCLI(t, "validate", inside)
	require.Equal(t, exitOK, code, stderr+stdout)
	assert.Contains(t, stderr, "3 packages", "validate's summary is on stderr, as opm's")
	stdout, stderr, code = runCLI(t, "render", inside)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, `"name": "baz"`)
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code = runCLI(t, "convert", inside, out)
	require.Equal(t, exitOK, code, stderr)
	assert.FileExists(t, filepath.Join(out, "baz", "catalog.json"))
	assert.Equal(t, []string{"bar", "baz", "foo"}, servedPackages(t, inside))

	for _, args := range [][]string{
		{"validate", escaping},
		{"render", escaping},
		{"convert", escaping, filepath.Join(t.TempDir(), "out")},
		{"serve", "-p", "0", escaping},
	} {
		// Bounded: a serve that skipped the link would run until stopped.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		var stdout, stderr strings.Builder
		code := run(ctx, args, &stdout, &stderr)
		cancel()
		assert.Equal(t, exitInvalid, code, "%v: %s", args, stderr.String())
		assert.Contains(t, stdout.String()+stderr.String(), "symlink baz", "%v", args)
	}
}

// servedPackages serves dir and returns ListPackages' answer, sorted.
func servedPackages(t *testing.T, dir string) []string {
	t.Helper()
	s := startServe(t, dir)
	stream, err := api.NewRegistryClient(s.conn).ListPackages(context.Background(), &api.ListPackageRequest{})
	require.NoError(t, err)
	var names []string
	for {
		p, err := stream.Recv()
		if err != nil {
			break
		}
		names = append(names, p.GetName())
	}
	require.NoError(t, s.stop(t))
	sort.Strings(names)
	return names
}
