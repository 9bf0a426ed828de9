package model

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// warningCatalog writes n packages, one file each, whose channel entry
// skips two bundles absent from the channel: two warnings per package.
// The packages named in bad get a default channel that does not exist.
func warningCatalog(t *testing.T, n int, bad ...string) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		p := fmt.Sprintf("pkg-%04d", i)
		def := "stable"
		for _, b := range bad {
			if b == p {
				def = "missing"
			}
		}
		blobs := fmt.Sprintf(`{"schema":"olm.package","name":%[1]q,"defaultChannel":%[2]q}
{"schema":"olm.channel","package":%[1]q,"name":"stable","entries":[{"name":"%[1]s.v1","skips":["gone-a","gone-b"]}]}
{"schema":"olm.bundle","package":%[1]q,"name":"%[1]s.v1","image":"img/%[1]s:1","properties":[{"type":"olm.package","value":{"packageName":%[1]q,"version":"1.0.0"}}]}
`, p, def)
		require.NoError(t, os.MkdirAll(filepath.Join(dir, p), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p, "catalog.json"), []byte(blobs), 0o644))
	}
	return dir
}

// TestValidateDirStreamsWarnings: the warnings of each package reach the
// sink as that package is checked, before the next package's model, so
// nothing collects them for the whole run (DirValidation has no room
// for them either).
func TestValidateDirStreamsWarnings(t *testing.T) {
	const n, perPackage = 300, 2
	dir := warningCatalog(t, n)
	var count int
	var models int
	res, err := ValidateDir(context.Background(), dir, WithModels(func(m *Model) error {
		models++
		require.Equal(t, models*perPackage, count, "warnings of package %d handed over before its model, later ones not yet", models)
		return nil
	}), WithWarnings(func(p Problem) {
		count++
		require.Contains(t, p.Message, "which is not in the channel")
	}))
	require.NoError(t, err)
	require.Equal(t, n, models)
	require.Equal(t, n*perPackage, count)
	require.Equal(t, DirValidation{Packages: n, Channels: n, Bundles: n}, res)
}

// TestValidateDirWarningsOfAnInvalidCatalog: every package that passes
// its checks hands over its warnings, also after a problem was found in
// another package; the problems are all reported.
func TestValidateDirWarningsOfAnInvalidCatalog(t *testing.T) {
	dir := warningCatalog(t, 10, "pkg-0002", "pkg-0007")
	var pkgs []string
	_, err := ValidateDir(context.Background(), dir, WithWarnings(func(p Problem) {
		if len(pkgs) == 0 || pkgs[len(pkgs)-1] != p.Package {
			pkgs = append(pkgs, p.Package)
		}
	}))
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	require.Len(t, ve.Problems, 2)
	require.Equal(t, "pkg-0002", ve.Problems[0].Package)
	require.Equal(t, "pkg-0007", ve.Problems[1].Package)
	require.Equal(t, []string{"pkg-0000", "pkg-0001", "pkg-0003", "pkg-0004", "pkg-0005", "pkg-0006", "pkg-0008", "pkg-0009"}, pkgs)
}

// TestValidateDirWithoutSinkComputesNoWarnings: without WithWarnings a
// valid catalog with warnings validates the same.
func TestValidateDirWithoutSinkComputesNoWarnings(t *testing.T) {
	res, err := ValidateDir(context.Background(), warningCatalog(t, 3))
	require.NoError(t, err)
	require.Equal(t, 3, res.Packages)
}

// warnings of a valid catalog.
