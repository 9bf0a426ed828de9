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

// writeLoaded is what render did before streaming: the whole directory
// loaded, then written.
func writeLoaded(t *testing.T, dir string, f Format) ([]byte, error) {
	t.Helper()
	cfg, err := LoadDir(context.Background(), dir)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	require.NoError(t, WriteStream(&buf, cfg, f))
	return buf.Bytes(), nil
}

// mixedCatalog lays out the cases the package-by-package writer must put
// back in opm's order: a file holding several packages (out of name
// order), a package spread over files, blobs without a package, a YAML
// file, a bundle object by reference and an ignored file.
func mixedCatalog(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"a-all.json": `{"schema":"olm.package","name":"zeta","defaultChannel":"stable"}
{"schema":"olm.channel","package":"zeta","name":"stable","entries":[{"name":"zeta.v2","replaces":"zeta.v1"},{"name":"zeta.v1"}]}
{"schema":"olm.package","name":"alpha"}
{"schema":"custom.thing","name":"loose"}
{"schema":"olm.bundle","package":"alpha","name":"alpha.v1","image":"img/alpha:1","properties":[{"type":"olm.package","value":{"packageName":"alpha","version":"1.0.0"}}]}`,
		"b/zeta-bundles.yaml": `---
schema: olm.bundle
package: zeta
name: zeta.v2
image: img/zeta:2
properties:
- type: olm.package
  value: {packageName: zeta, version: 2.0.0}
- type: olm.bundle.object
  value: {ref: objs/csv.json}
---
schema: olm.bundle
package: zeta
name: zeta.v1
image: img/zeta:1
properties:
- type: olm.package
  value: {packageName: zeta, version: 1.0.0}
`,
		"b/objs/csv.json":    `{"kind":"ClusterServiceVersion","apiVersion":"operators.coreos.com/v1alpha1","metadata":{"name":"zeta.v2"}}`,
		"b/.indexignore":     "objs\n",
		"c/alpha-more.json":  `{"schema":"olm.channel","package":"alpha","name":"beta","entries":[{"name":"alpha.v1"}]}` + "\n" + `{"schema":"olm.deprecations","package":"alpha","entries":[{"reference":{"schema":"olm.package"},"message":"gone"}]}`,
		"d/middle/mid.json":  `{"schema":"olm.package","name":"mid"}` + "\n" + `{"schema":"custom.thing","package":"mid","name":"x"}`,
		"d/middle/note.txt":  "not a catalog file",
		"e/empty-file.json":  "",
		"e/only-loose.yaml":  "schema: custom.other\nname: loose2\n",
		"f/zz-zeta-dep.json": `{"schema":"olm.deprecations","package":"zeta","entries":[{"reference":{"schema":"olm.bundle","name":"zeta.v1"},"message":"old"}]}`,
	}
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
	}
	return dir
}

func TestWriteDirStreamSameBytesAsLoadAndWrite(t *testing.T) {
	dirs := append([]string{mixedCatalog(t)}, opmOutputDirs(t)...)
	for _, dir := range dirs {
		for _, f := range []Format{FormatJSON, FormatYAML} {
			t.Run(filepath.Base(filepath.Dir(dir))+"/"+filepath.Base(dir)+"/"+string(f), func(t *testing.T) {
				want, err := writeLoaded(t, dir, f)
				require.NoError(t, err)
				var got bytes.Buffer
				// Concurrency 1 and 3 exercise the prefetch with fewer and
				// more files in flight than the writer takes.
				for _, n := range []int{1, 3} {
					got.Reset()
					require.NoError(t, writeDirStream(context.Background(), &got, dir, f, WithConcurrency(n)))
					require.Equal(t, string(want), got.String())
				}
			})
		}
	}
}

func TestWriteDirStreamFailsLikeLoadDirBeforeWriting(t *testing.T) {
	dir := mixedCatalog(t)
	// Two bad files: the first in file order is the one reported.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "c", "bad.json"), []byte(`{"schema":"olm.bundle","package":"alpha","name":`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f", "bad.json"), []byte(`{"schema":"olm.package"`), 0o644))
	_, wantErr := LoadDir(context.Background(), dir)
	require.Error(t, wantErr)
	var out bytes.Buffer
	err := writeDirStream(context.Background(), &out, dir, FormatJSON)
	require.EqualError(t, err, wantErr.Error())
	require.Zero(t, out.Len(), "nothing is written when the catalog does not load")
}

func TestWriteDirStreamCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out bytes.Buffer
	require.ErrorIs(t, writeDirStream(ctx, &out, mixedCatalog(t), FormatJSON), context.Canceled)
}

// validateLoaded is what validate did before streaming, with the

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
		err := writeDirStream(context.Background(), &out, dir, FormatJSON, WithConcurrency(n))
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
	require.NoError(t, writeDirStream(context.Background(), &got, dir, FormatJSON, WithPackages("zeta")))
	require.Equal(t, want.String(), got.String())
	require.Contains(t, got.String(), `"zeta.v2"`)
}
