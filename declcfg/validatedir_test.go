package declcfg

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	res, err := LoadDirModels(context.Background(), dir, func(m *Model) error {
		models++
		require.Equal(t, models*perPackage, count, "warnings of package %d handed over before its model, later ones not yet", models)
		return nil
	}, WithWarnings(func(p Problem) {
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

// TestWriteDirStreamDecodeErrorAfterScan: a blob the scan accepts but the
// decoder refuses (an object ref that does not resolve) fails with
// LoadDir's error, the first bad file in file order, whichever pass
// meets it; the packages before it were written.
func TestWriteDirStreamDecodeErrorAfterScan(t *testing.T) {
	dir := mixedCatalog(t)
	missingRef := `{"schema":"olm.bundle","package":%q,"name":"b","properties":[{"type":"olm.bundle.object","value":{"ref":"missing.json"}}]}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f", "bad.json"), fmt.Appendf(nil, missingRef, "beta"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "c", "bad.json"), fmt.Appendf(nil, missingRef, "zeta"), 0o644))
	_, wantErr := LoadDir(context.Background(), dir)
	require.ErrorContains(t, wantErr, "c/bad.json")
	for _, n := range []int{1, 3} {
		var out bytes.Buffer
		err := WriteDirStream(context.Background(), &out, dir, FormatJSON, WithConcurrency(n))
		require.EqualError(t, err, wantErr.Error())
		require.True(t, strings.HasPrefix(out.String(), "{\n    \"schema\": \"olm.package\",\n    \"name\": \"alpha\""), "alpha comes before zeta: %s", out.String())
		require.NotContains(t, out.String(), `"zeta"`)
	}
}

// TestWriteDirStreamWithPackages: the package filter gives what the
// filtered LoadDir gives; files that cannot hold the package are not
// read, so a broken one does not matter.
func TestWriteDirStreamWithPackages(t *testing.T) {
	dir := mixedCatalog(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f", "broken.json"), []byte(`{"schema":"olm.package"`), 0o644))
	cfg, err := LoadDir(context.Background(), dir, WithPackages("zeta"))
	require.NoError(t, err)
	var want, got bytes.Buffer
	require.NoError(t, WriteStream(&want, cfg, FormatJSON))
	require.NoError(t, WriteDirStream(context.Background(), &got, dir, FormatJSON, WithPackages("zeta")))
	require.Equal(t, want.String(), got.String())
	require.Contains(t, got.String(), `"zeta.v2"`)
}
