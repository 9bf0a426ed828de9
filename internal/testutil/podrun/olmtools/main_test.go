package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCopyContent: OLM's copy-content replaces each destination by a copy
// of its source (modes and symlinks kept) and fails naming a missing
// source.
func TestCopyContent(t *testing.T) {
	src := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(src, "configs", "pkg"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, "configs", "pkg", "catalog.json"), []byte("{}"), 0o640))
	require.NoError(t, os.Symlink("pkg/catalog.json", filepath.Join(src, "configs", "link")))
	require.NoError(t, os.MkdirAll(filepath.Join(src, "cache"), 0o555))
	dst := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dst, "catalog", "stale"), 0o755))
	for _, tc := range []struct {
		name string
		args []string
		err  string
	}{
		{name: "catalog and cache", args: []string{"--catalog.from=" + filepath.Join(src, "configs"), "--catalog.to=" + filepath.Join(dst, "catalog"),
			"--cache.from=" + filepath.Join(src, "cache"), "--cache.to=" + filepath.Join(dst, "cache")}},
		{name: "missing source", args: []string{"--catalog.from=" + filepath.Join(src, "none"), "--catalog.to=" + filepath.Join(dst, "x")},
			err: "failed to copy " + filepath.Join(src, "none") + " to " + filepath.Join(dst, "x")},
		{name: "cache pair incomplete", args: []string{"--catalog.from=a", "--catalog.to=b", "--cache.from=c"}, err: "go together"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := copyContent(tc.args)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			_, err = os.Stat(filepath.Join(dst, "catalog", "stale"))
			assert.ErrorIs(t, err, os.ErrNotExist, "the destination was replaced")
			st, err := os.Stat(filepath.Join(dst, "catalog", "pkg", "catalog.json"))
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o640), st.Mode().Perm())
			target, err := os.Readlink(filepath.Join(dst, "catalog", "link"))
			require.NoError(t, err)
			assert.Equal(t, "pkg/catalog.json", target)
			st, err = os.Stat(filepath.Join(dst, "cache"))
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o555), st.Mode().Perm())
		})
	}
}
