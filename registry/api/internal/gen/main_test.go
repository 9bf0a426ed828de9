package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGeneratedFilesUpToDate regenerates the api package's Go code into a
// temp dir and requires it to be byte-identical to the committed files, so
// an edited registry.proto cannot be committed without `make generate`.
func TestGeneratedFilesUpToDate(t *testing.T) {
	tmp := t.TempDir()
	require.NoError(t, run(context.Background(), filepath.Join("..", "..", "registry.proto"), tmp))
	for _, name := range []string{"registry.pb.go", "registry_grpc.pb.go"} {
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("..", "..", name))
			require.NoError(t, err)
			got, err := os.ReadFile(filepath.Join(tmp, name))
			require.NoError(t, err)
			require.Equal(t, string(want), string(got), "%s is stale: run `make generate`", name)
		})
	}
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Len(t, entries, 2, "generator produced unexpected files")
}

func TestGenerateBadProto(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "bad.proto")
	require.NoError(t, os.WriteFile(p, []byte("syntax = \"proto3\";\nmessage {"), 0o644))
	err := run(context.Background(), p, t.TempDir())
	require.ErrorContains(t, err, "compile")
}
