package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
)

// parityDiff is one difference of olmcat parity -o json.
type parityDiff struct {
	RPC     string `json:"rpc"`
	Request string `json:"request"`
	Path    string `json:"path"`
	Left    string `json:"left"`
	Right   string `json:"right"`
	Class   string `json:"class"`
	Rule    string `json:"rule"`
}

// parityJSON is the part of olmcat parity -o json the test reads.
type parityJSON struct {
	Diffs     []parityDiff `json:"diffs"`
	Calls     int          `json:"calls"`
	LossCalls int          `json:"lossCalls"`
}

// TestOPMIndexParity checks olmcat parity --strict between opm's
// resulting database of each case that keeps it (opmIndexDBCases, made by
// the real opm v1.73.0) and the catalog olmcat's own command writes from
// the same input. Parity's sqlite side is olmcat's legacy server, which
// registry's fixture tests check against the recorded answers of the real
// opm registry serve: this compares what opm registry serve answers for
// opm's result with what olmcat serves for its own.
//
// Between a sqlite and a declarative config server parity --strict always
// reports the benign differences of the two backends (error wording,
// plural fields only sqlite fills, ...), so olmcat's result must differ
// from opm's database in exactly the calls, paths and values that olmcat
// migrate of opm's database differs in (all benign), and nothing else but
// the fixes MIGRATION.md lists: in semver modes opm blanked the CSV and
// objects of every non-head bundle (ClearNonHeadBundles), olmcat keeps
// them, which parity reports as manifests-differ on GetBundle and
// GetBundleThatReplaces for exactly those bundles.
func TestOPMIndexParity(t *testing.T) {
	for _, name := range opmIndexDBCases {
		i := slices.IndexFunc(opmIndexCases, func(c opmIndexCase) bool { return c.name == name })
		require.GreaterOrEqual(t, i, 0, name)
		c := opmIndexCases[i]
		t.Run(c.name, func(t *testing.T) {
			reg, flags, refs, golden := setupOPMIndexCase(t, c)
			work := t.TempDir()
			opmDB := readOnlyCopy(t, filepath.Join(golden, "index.db"), filepath.Join(work, "opm", "index.db"))
			in := readOnlyCopy(t, filepath.Join(golden, "../../legacy", c.fixture, "index.db"), filepath.Join(work, "in", "index.db"))
			out := olmcatIndexResult(t, c, in, refs, flags)
			host, err := os.ReadFile(filepath.Join(golden, "registry"))
			require.NoError(t, err)
			replaceInTree(t, out, reg.Host, strings.TrimSpace(string(host)))
			base := filepath.Join(work, "migrated")
			_, stderr, code := runCLI(t, "migrate", "--no-deprecation-warning", opmDB, base)
			require.Equal(t, 0, code, stderr)

			want := strictParity(t, opmDB, base)
			require.Zero(t, want.LossCalls, "olmcat migrate of opm's database: only benign backend differences")
			got := strictParity(t, opmDB, out)
			require.Equal(t, want.Calls, got.Calls, "calls compared")
			var extra []parityDiff
			for _, d := range got.Diffs {
				if !slices.Contains(want.Diffs, d) {
					extra = append(extra, d)
				}
			}
			for _, d := range want.Diffs {
				assert.Contains(t, got.Diffs, d, "a difference of opm's database and its migration that olmcat's result lacks")
			}
			if !opmIndexExpect[c.name].cleared {
				require.Empty(t, extra, "differences beyond the sqlite/declarative config backends'")
				return
			}
			require.NotEmpty(t, extra, "opm blanked the non-head bundles")
			assertClearedByOPM(t, extra, blankedBundles(t, golden))
		})
	}
}

// readOnlyCopy copies src to dst and makes the copy read-only.
func readOnlyCopy(t *testing.T, src, dst string) string {
	t.Helper()
	copyFile(t, src, dst)
	require.NoError(t, os.Chmod(dst, 0o444))
	return dst
}

// strictParity runs olmcat parity --strict -o json and returns its
// result; it exits 0 exactly when no difference was found.
func strictParity(t *testing.T, left, right string) parityJSON {
	t.Helper()
	stdout, stderr, code := runCLI(t, "parity", "--strict", "-o", "json", "--no-deprecation-warning", left, right)
	var res parityJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &res), stderr)
	require.Positive(t, res.Calls)
	if len(res.Diffs) == 0 {
		require.Equal(t, 0, code, stderr)
	} else {
		require.Equal(t, exitInvalid, code, stderr)
	}
	return res
}

// manifestName is the object name in parity's summary of a manifest
// ("Kind/name (N bytes)").
var manifestName = regexp.MustCompile(`^ClusterServiceVersion/(\S+) \(\d+ bytes\)$`)

// assertClearedByOPM checks that each difference is opm's blanked
// manifests (MIGRATION.md: semver modes blanked the CSV and objects of
// every non-head bundle; olmcat keeps every bundle's content): a bundle
// answer whose csvJson opm served empty and whose objects it served
// absent, for a bundle whose recorded opm migrate output has no objects.
func assertClearedByOPM(t *testing.T, diffs []parityDiff, blanked []string) {
	t.Helper()
	for _, d := range diffs {
		assert.Equal(t, "manifests-differ", d.Rule, "%+v", d)
		assert.Contains(t, []string{"GetBundle", "GetBundleThatReplaces"}, d.RPC, "%+v", d)
		switch {
		case d.Path == ".csvJson":
			assert.Equal(t, "empty", d.Left, "%+v", d)
			m := manifestName.FindStringSubmatch(d.Right)
			if assert.NotNil(t, m, "%+v", d) {
				assert.Contains(t, blanked, m[1], "%+v", d)
			}
		case strings.HasPrefix(d.Path, ".object["):
			assert.Equal(t, "absent", d.Left, "%+v", d)
			assert.Equal(t, ".object["+d.Right+"]", d.Path, "%+v", d)
		default:
			assert.Fail(t, "not a manifest difference", "%+v", d)
		}
	}
}

// blankedBundles names the bundles of the recorded opm migrate output
// (the packages opm's command changed) that have no objects: the ones
// opm's semver mode blanked.
func blankedBundles(t *testing.T, golden string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(golden, "catalog", "*", "catalog.json"))
	require.NoError(t, err)
	var out []string
	for _, f := range files {
		for _, b := range readBlobs(t, f, "") {
			if b["schema"] == declcfg.SchemaBundle && !hasObjects(b) {
				out = append(out, b["name"].(string))
			}
		}
	}
	return out
}

// olmcatIndexResult runs c's steps with olmcat from the database in and
// returns the catalog directory written.
func olmcatIndexResult(t *testing.T, c opmIndexCase, in string, refs map[string]string, flags []string) string {
	t.Helper()
	if c.index {
		s := c.steps[0]
		work := t.TempDir()
		t.Chdir(work)
		args := append([]string{"index", s.verb, "-f", in, "--generate", "-i", "example.com/opm:v1", "--no-deprecation-warning"}, opmVerbArgs(s, refs, "-o")...)
		_, stderr, code := runCLI(t, append(args, flags...)...)
		require.Equal(t, 0, code, stderr)
		return filepath.Join(work, generatedCatalogDir)
	}
	for _, s := range c.steps {
		out := filepath.Join(t.TempDir(), "step")
		_, stderr, code := runCLI(t, append(olmcatStepArgs(s, in, out, refs), flags...)...)
		require.Equal(t, 0, code, stderr)
		in = out
	}
	return in
}

// replaceInTree replaces old with new in every file under dir: the
// loopback registry's host:port in the bundle image references olmcat
// wrote, by the one recorded in opm's database.
func replaceInTree(t testing.TB, dir, old, new string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(path, []byte(strings.ReplaceAll(string(data), old, new)), 0o644)
	}))
}
