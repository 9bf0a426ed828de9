package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

// TestUnpackCommand: a sqlite index image unpacks to what migrate of the
// same db writes (objects layout by default, with the deprecation
// warning); a declarative config image unpacks to its configs; the folder
// is named after the image by default.
func TestUnpackCommand(t *testing.T) {
	reg := imagetest.New(t)
	tmp, flags := imageTestEnv(t)
	db := "../../fixtures/legacy/small-fbb/index.db"
	dbRef := pushDBImage(t, reg, "ns/index:v4.14", db)
	fbcDir := "../../fixtures/legacy/opreg-indexer-bundles/opm-migrate"
	fbcRef := pushConfigsImage(t, reg, "ns/fbc:v1", fbcDir)
	out := t.TempDir()
	pkgDir, err := os.Getwd()
	require.NoError(t, err)

	_, stderr, code := runCLI(t, "migrate", db, filepath.Join(out, "want-objects"), "--layout", "objects")
	require.Equal(t, 0, code, stderr)
	t.Chdir(out)
	_, stderr, code = runCLI(t, append([]string{"unpack", dbRef}, flags...)...)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "migrated "+dbRef, "the database was migrated (without a deprecation warning: unpack migrates)")
	require.Equal(t, snapshotTree(t, "want-objects"), snapshotTree(t, "index-v4.14"))

	_, stderr, code = runCLI(t, append([]string{"unpack", fbcRef, "fbc", "--layout", "opm"}, flags...)...)
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, stderr, "WARNING")
	want := snapshotTree(t, filepath.Join(pkgDir, fbcDir))
	require.Equal(t, want, snapshotTree(t, "fbc"))

	// An existing folder is not replaced without --force.
	_, stderr, code = runCLI(t, append([]string{"unpack", fbcRef, "fbc"}, flags...)...)
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "fbc")
	assertNoImageTemp(t, tmp)
}

// TestGenerateDockerfileCommand: the CLI writes opm's Dockerfile.
func TestGenerateDockerfileCommand(t *testing.T) {
	want, err := os.ReadFile("../../image/testdata/catalog.Dockerfile")
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "catalog"), 0o755))
	const opmImage = "registry.example.com/operator-framework/opm:latest"
	_, stderr, code := runCLI(t, "generate", "dockerfile", filepath.Join(dir, "catalog"))
	require.Equal(t, exitUsage, code, "no default image: olmcat names no registry")
	require.Contains(t, stderr, "--base-image is required")
	_, stderr, code = runCLI(t, "generate", "dockerfile", filepath.Join(dir, "catalog"), "-i", opmImage)
	require.Equal(t, 0, code, stderr)
	got, err := os.ReadFile(filepath.Join(dir, "catalog.Dockerfile"))
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
	_, stderr, code = runCLI(t, "generate", "dockerfile", filepath.Join(dir, "catalog"), "-i", opmImage)
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "file already exists")
	_, _, code = runCLI(t, "generate", "dockerfile", filepath.Join(dir, "catalog"), "-i", opmImage, "-l", "novalue")
	require.Equal(t, exitUsage, code)
}
