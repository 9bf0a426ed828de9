package declcfg

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// opmOutputDirs lists the directories the real opm wrote (opm migrate,
// with and without the csv-metadata migration) in the repo's fixtures.
func opmOutputDirs(t testing.TB) []string {
	t.Helper()
	var dirs []string
	for _, pat := range []string{"../fixtures/legacy/*/opm-migrate", "../fixtures/legacy/*/opm-migrate-csvmetadata"} {
		m, err := filepath.Glob(pat)
		require.NoError(t, err)
		dirs = append(dirs, m...)
	}
	sort.Strings(dirs)
	require.NotEmpty(t, dirs, "no opm fixtures found")
	return dirs
}

// readTree returns every regular file under dir by slash path.
func readTree(t testing.TB, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	}))
	return files
}

// TestOPMLayoutByteIdentical is the golden proof of the writer: loading
// what opm migrate wrote and writing it again in the opm layout gives the
// very same bytes, file for file.
func TestOPMLayoutByteIdentical(t *testing.T) {
	for _, dir := range opmOutputDirs(t) {
		t.Run(filepath.Base(filepath.Dir(dir))+"/"+filepath.Base(dir), func(t *testing.T) {
			cfg, err := LoadDir(context.Background(), dir)
			require.NoError(t, err)
			out := filepath.Join(t.TempDir(), "out")
			require.NoError(t, WriteDir(cfg, out, WithLayout(LayoutOPM), WithFormat(FormatJSON)))
			want := readTree(t, dir)
			got := readTree(t, out)
			require.Equal(t, sortedKeys(want), sortedKeys(got))
			for name := range want {
				require.True(t, want[name] == got[name], "%s differs from opm's bytes", name)
			}
		})
	}
}

// TestOPMOutputsValidate: everything opm wrote passed opm's validation, so
// it must pass ours.
func TestOPMOutputsValidate(t *testing.T) {
	for _, dir := range opmOutputDirs(t) {
		t.Run(filepath.Base(filepath.Dir(dir))+"/"+filepath.Base(dir), func(t *testing.T) {
			cfg, err := LoadDir(context.Background(), dir)
			require.NoError(t, err)
			m, n, err := toModel(cfg)
			require.NoError(t, err)
			require.NotZero(t, n)
			require.NoError(t, m.Validate())
		})
	}
}

// TestObjectsLayoutLossless: opm -> objects (JSON) -> opm gives opm's
// bytes back. (A YAML objects layout orders keys alphabetically, as opm's
// YAML does, so only the JSON form can keep property key order.)
func TestObjectsLayoutLossless(t *testing.T) {
	for _, dir := range opmOutputDirs(t) {
		for _, f := range []Format{FormatJSON} {
			t.Run(filepath.Base(filepath.Dir(dir))+"/"+filepath.Base(dir)+"/"+string(f), func(t *testing.T) {
				ctx := context.Background()
				cfg, err := LoadDir(ctx, dir)
				require.NoError(t, err)
				objDir := filepath.Join(t.TempDir(), "objects")
				require.NoError(t, WriteDir(cfg, objDir, WithLayout(LayoutObjects), WithFormat(f)))
				back, err := LoadDir(ctx, objDir)
				require.NoError(t, err)
				out := filepath.Join(t.TempDir(), "opm")
				require.NoError(t, WriteDir(back, out, WithLayout(LayoutOPM), WithFormat(FormatJSON)))
				want := readTree(t, dir)
				got := readTree(t, out)
				require.Equal(t, sortedKeys(want), sortedKeys(got))
				for name := range want {
					require.True(t, want[name] == got[name], "%s differs from opm's bytes after the objects round trip", name)
				}

				// And the other way: objects -> opm -> objects.
				again, err := LoadDir(ctx, out)
				require.NoError(t, err)
				objDir2 := filepath.Join(t.TempDir(), "objects2")
				require.NoError(t, WriteDir(again, objDir2, WithLayout(LayoutObjects), WithFormat(f)))
				require.Equal(t, readTree(t, objDir), readTree(t, objDir2))
			})
		}
	}
}

// TestObjectsLayoutYAMLKeepsMeaning: a YAML objects layout orders keys, so
// the check is on meaning: both sides render to the same YAML.
func TestObjectsLayoutYAMLKeepsMeaning(t *testing.T) {
	for _, dir := range opmOutputDirs(t) {
		t.Run(filepath.Base(filepath.Dir(dir))+"/"+filepath.Base(dir), func(t *testing.T) {
			ctx := context.Background()
			cfg, err := LoadDir(ctx, dir)
			require.NoError(t, err)
			objDir := filepath.Join(t.TempDir(), "objects")
			require.NoError(t, WriteDir(cfg, objDir, WithLayout(LayoutObjects), WithFormat(FormatYAML)))
			back, err := LoadDir(ctx, objDir)
			require.NoError(t, err)
			var a, b bytes.Buffer
			require.NoError(t, WriteYAML(&a, cfg))
			require.NoError(t, WriteYAML(&b, back))
			require.True(t, a.String() == b.String(), "YAML objects layout changed the catalog's meaning")
		})
	}
}
