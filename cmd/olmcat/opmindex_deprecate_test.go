package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
)

// withoutDeprecated copies catalog dir without what olmcat keeps of the
// bundles deprecatetruncate deprecated and opm's render leaves out
// (MIGRATION.md): the bundles carrying olm.deprecated, their channel
// entries and the olm.deprecations blobs. It returns the copy.
func withoutDeprecated(t *testing.T, dir string) string {
	t.Helper()
	out := t.TempDir()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range ents {
		blobs := readBlobs(t, filepath.Join(dir, e.Name(), "catalog.json"), "")
		var gone []string
		for _, b := range blobs {
			if b["schema"] == declcfg.SchemaBundle && slices.ContainsFunc(b["properties"].([]any), func(p any) bool {
				return p.(map[string]any)["type"] == declcfg.PropertyDeprecated
			}) {
				gone = append(gone, b["name"].(string))
			}
		}
		var text strings.Builder
		for _, b := range blobs {
			switch {
			case b["schema"] == declcfg.SchemaDeprecations, b["schema"] == declcfg.SchemaBundle && slices.Contains(gone, b["name"].(string)):
				continue
			case b["schema"] == declcfg.SchemaChannel:
				b["entries"] = slices.DeleteFunc(b["entries"].([]any), func(e any) bool {
					return slices.Contains(gone, e.(map[string]any)["name"].(string))
				})
			}
			data, err := json.Marshal(b)
			require.NoError(t, err)
			text.Write(append(data, '\n'))
		}
		require.NoError(t, os.MkdirAll(filepath.Join(out, e.Name()), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(out, e.Name(), "catalog.json"), []byte(text.String()), 0o644))
	}
	return out
}

// TestDeprecateTruncateAsOPMDatabase: registry deprecatetruncate of
// foo.v0.2.0 on small-fbb writes what olmcat migrate --keep-deprecated
// makes of small-fbb-deprecated, the database the real opm's
// deprecatetruncate of that bundle left: the same bytes.
func TestDeprecateTruncateAsOPMDatabase(t *testing.T) {
	img := fixtureImages(t, "small-fbb")["foo.v0.2.0"]
	want := filepath.Join(t.TempDir(), "want")
	_, stderr, code := runCLI(t, "migrate", "--keep-deprecated", "../../fixtures/legacy/small-fbb-deprecated/index.db", want)
	require.Equal(t, 0, code, stderr)
	for _, in := range []string{"../../fixtures/legacy/small-fbb/index.db", "../../fixtures/legacy/small-fbb/opm-migrate"} {
		got := filepath.Join(t.TempDir(), "got")
		_, stderr, code = runCLI(t, "registry", "deprecatetruncate", "-d", in, "-b", img, "--output", got, "--no-deprecation-warning")
		require.Equal(t, 0, code, stderr)
		require.Equal(t, snapshotTree(t, want), snapshotTree(t, got), in)
		require.Contains(t, stderr, "removed channel stable of package foo: its head foo.v0.2.0 is deprecated")
	}
}
