package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

// opmIndexExpect is what olmcat does where the recording is no success
// to compare with, or differs on purpose (each listed in MIGRATION.md).
var opmIndexExpect = map[string]struct {
	err     string // olmcat's last step fails (exit 1) with this in its error
	differs string // opm failed (in some runs), olmcat succeeds: this channel (package/channel=entries) results
	cleared bool   // opm blanked the CSVs of non-head bundles (semver modes); olmcat keeps them
}{
	"foo-replaces-same-csv":                     {err: "Bundle already added that provides package and csv (bundle foo.v0.2.0 of package foo)"},
	"foo-replaces-same-image":                   {err: "small-fbb-foo-bundle-v0-3-0:latest already exists (bundle foo.v0.3.0 of package foo)"},
	"couchdb-replaces-readd":                    {err: "add prunes bundle couchdb-operator.v1.0.14"},
	"small-fbb-rm-nosuch":                       {err: "error removing operator package nosuch: no package found for packagename nosuch"},
	"foo-skippatch-0.3.0-then-0.3.1":            {differs: "foo/beta=foo.v0.1.0 foo.v0.2.0<foo.v0.1.0[foo.v0.1.1 foo.v0.1.2] foo.v0.3.0<foo.v0.2.0 foo.v0.3.1<foo.v0.2.0[foo.v0.3.0]"},
	"foo-semver-0.3.0":                          {cleared: true},
	"index-add-foo-semver-0.3.0":                {cleared: true},
	"foo-semver-0.3.1":                          {cleared: true},
	"foo-semver-0.3.0-then-0.3.1":               {cleared: true},
	"foo-skippatch-0.3.0":                       {cleared: true},
	"prometheus-semver-beta":                    {cleared: true},
	"couchdb-semver-readd":                      {cleared: true},
	"prometheus-substitutes-noalpha":            {err: "bundle prometheusoperator.0.15.0+1-freshmaker-rebuild: SubstitutesFor is an alpha-only feature. You must enable alpha features with the flag --enable-alpha in order to use this feature."},
	"prometheus-substitutes-semver":             {err: "Bundle version 0.15.0+1 already added to index"},
	"small-fbb-dt-default-head":                 {err: "error deprecating bundle 127.0.0.1:5000/test/bar-bundle:v1.0.0: Bundle deprecation causing default channel removal"},
	"small-fbb-dt-missing":                      {err: "target bundlepaths for deprecation missing from registry: [nosuch-bundle:v1]"},
	"small-fbb-dt-package-removal-head-missing": {err: "cannot deprecate default channel head from package without removing all other channel heads in package bar: must deprecate 127.0.0.1:5000/test/bar-bundle:v0.2.0, head of channel alpha"},
	"prometheus-substitutes-competing":          {differs: "prometheus/preview=prometheusoperator.0.14.0 prometheusoperator.0.14.0+0.1234-rebuild prometheusoperator.0.14.0+2-rebuild prometheusoperator.0.14.0+3-rebuild[prometheusoperator.0.14.0+0.1234-rebuild prometheusoperator.0.14.0 prometheusoperator.0.14.0+2-rebuild] prometheusoperator.0.15.0<prometheusoperator.0.14.0+3-rebuild prometheusoperator.0.22.2<prometheusoperator.0.15.0"},
	"prometheus-substitutes-one-call":           {differs: "prometheus/preview=prometheusoperator.0.14.0 prometheusoperator.0.14.0+0.1234-rebuild prometheusoperator.0.14.0+2-rebuild prometheusoperator.0.14.0+3-rebuild[prometheusoperator.0.14.0+2-rebuild prometheusoperator.0.14.0+0.1234-rebuild prometheusoperator.0.14.0] prometheusoperator.0.15.0<prometheusoperator.0.14.0+3-rebuild prometheusoperator.0.22.2<prometheusoperator.0.15.0"},
	"prometheus-substitutes-chain-one-call":     {differs: "prometheus/preview=prometheusoperator.0.14.0 prometheusoperator.0.15.0 prometheusoperator.0.15.0+1-freshmaker-rebuild prometheusoperator.0.15.0+2-freshmaker-rebuild<prometheusoperator.0.14.0[prometheusoperator.0.15.0+1-freshmaker-rebuild prometheusoperator.0.15.0] prometheusoperator.0.22.2<prometheusoperator.0.15.0+2-freshmaker-rebuild"},
}

// TestOPMIndexGoldens runs olmcat's registry commands on every recorded
// case (fixtures/opmindex, made by the real opm v1.73.0, see
// opmindex_record_test.go) and compares the declarative config written
// with what opm migrate made of opm's database, blob by blob. Where opm
// failed, olmcat fails too with opm's message and writes nothing; the
// input database is never modified.
func TestOPMIndexGoldens(t *testing.T) {
	for _, c := range opmIndexCases {
		t.Run(c.name, func(t *testing.T) {
			reg, flags, refs, golden := setupOPMIndexCase(t, c)
			legacyDir, err := filepath.Abs(filepath.Join("../../fixtures/legacy", c.fixture))
			require.NoError(t, err)
			input := filepath.Join(legacyDir, "index.db")
			want := opmIndexExpect[c.name]
			if c.index {
				indexGolden(t, c, reg, refs, golden, legacyDir, flags, want.cleared)
				return
			}
			before := snapshotTree(t, filepath.Dir(input))
			in, code, stderr := input, 0, ""
			for i, s := range c.steps {
				out := filepath.Join(t.TempDir(), "step")
				args := append(olmcatStepArgs(s, in, out, refs), flags...)
				_, stderr, code = runCLI(t, args...)
				if code != 0 {
					require.NoDirExists(t, out, "a failed step writes nothing")
					require.Equal(t, len(c.steps)-1, i, "step %d failed: %s", i, stderr)
					break
				}
				in = out
			}
			require.Equal(t, before, snapshotTree(t, filepath.Dir(input)), "input modified")
			if want.err != "" {
				require.Equal(t, exitInvalid, code, stderr)
				require.Contains(t, strings.ReplaceAll(stderr, reg.Host, registryPlaceholder), want.err)
				return
			}
			require.Equal(t, 0, code, stderr)
			if want.differs != "" {
				pc, entries, _ := strings.Cut(want.differs, "=")
				pkg, ch, _ := strings.Cut(pc, "/")
				var got []string
				for _, e := range channelEntries(t, in, pkg)[ch] {
					s := e.Name
					if e.Replaces != "" {
						s += "<" + e.Replaces
					}
					if len(e.Skips) > 0 {
						s += fmt.Sprint(e.Skips)
					}
					got = append(got, s)
				}
				require.Equal(t, entries, strings.Join(got, " "))
				return
			}
			if c.steps[len(c.steps)-1].verb == "deprecatetruncate" {
				in = withoutDeprecated(t, in)
			}
			compareWithOPM(t, golden, legacyDir, in, reg.Host, want.cleared)
		})
	}
}

// setupOPMIndexCase pushes c's bundles to a new loopback registry and
// returns it, the image flags, the bundle image refs and the recording's
// absolute dir.
func setupOPMIndexCase(t *testing.T, c opmIndexCase) (reg *imagetest.Registry, flags []string, refs map[string]string, golden string) {
	t.Helper()
	reg = imagetest.New(t)
	_, flags = imageTestEnv(t)
	refs = pushCaseBundles(t, reg, c)
	golden, err := filepath.Abs(filepath.Join(opmIndexGoldens, c.name))
	require.NoError(t, err)
	return reg, flags, refs, golden
}

// indexGolden runs a recorded opm index <verb> --generate case with
// olmcat index <verb> --generate from three inputs: the sqlite index
// image opm read, the database file, and the catalog directory opm
// migrate made of it; each ./database equals the recording and the
// Dockerfile serves it on the given opm image.
func indexGolden(t *testing.T, c opmIndexCase, reg *imagetest.Registry, refs map[string]string, golden, legacyDir string, flags []string, cleared bool) {
	t.Helper()
	s := c.steps[0]
	for _, from := range []string{pushIndexImage(t, reg, c.fixture), filepath.Join(legacyDir, "index.db"), filepath.Join(legacyDir, "opm-migrate")} {
		work := t.TempDir()
		t.Chdir(work)
		args := append([]string{"index", s.verb, "-f", from, "--generate", "-i", "example.com/opm:v1", "--no-deprecation-warning"}, opmVerbArgs(s, refs, "-o")...)
		_, stderr, code := runCLI(t, append(args, flags...)...)
		require.Equal(t, 0, code, stderr)
		out := filepath.Join(work, generatedCatalogDir)
		if s.verb == "deprecatetruncate" {
			out = withoutDeprecated(t, out)
		}
		compareWithOPM(t, golden, legacyDir, out, reg.Host, cleared)
		df, err := os.ReadFile(filepath.Join(work, "index.Dockerfile"))
		require.NoError(t, err)
		require.Contains(t, string(df), "FROM example.com/opm:v1\n")
		require.Contains(t, string(df), "ADD database /configs\n")
	}
}

// olmcatStepArgs is olmcat's command line for a step reading in and
// writing out.
func olmcatStepArgs(s opmIndexStep, in, out string, refs map[string]string) []string {
	return append([]string{"registry", s.verb, "-d", in, "--output", out, "--no-deprecation-warning"}, opmVerbArgs(s, refs, "-o")...)
}

// compareWithOPM compares each package of olmcat's catalog dir with the
// recording (or the fixture's own opm migrate output for packages the
// recording did not change), blob by blob.
func compareWithOPM(t *testing.T, golden, legacyDir, dir, host string, cleared bool) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(golden, "packages"))
	require.NoError(t, err)
	wantPkgs := strings.Fields(string(data))
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var gotPkgs []string
	for _, e := range ents {
		gotPkgs = append(gotPkgs, e.Name())
	}
	require.Equal(t, wantPkgs, gotPkgs)
	for _, pkg := range wantPkgs {
		wantFile := filepath.Join(golden, "catalog", pkg, "catalog.json")
		if _, err := os.Stat(wantFile); err != nil {
			wantFile = filepath.Join(legacyDir, "opm-migrate", pkg, "catalog.json")
		}
		want := readBlobs(t, wantFile, "")
		got := readBlobs(t, filepath.Join(dir, pkg, "catalog.json"), host)
		require.Equal(t, len(want), len(got), "package %s: blob count", pkg)
		for i := range want {
			migrateDifferences(want[i])
			migrateDifferences(got[i])
			if cleared {
				clearLikeOPM(want[i], got[i])
			}
			assert.Empty(t, cmp.Diff(want[i], got[i]), "package %s blob %d (-opm +olmcat)", pkg, i)
		}
	}
}

// readBlobs decodes the blobs of a catalog file, the registry host
// replaced by the placeholder.
func readBlobs(t *testing.T, file, host string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	text := string(data)
	if host != "" {
		text = strings.ReplaceAll(text, host, registryPlaceholder)
	}
	var blobs []map[string]any
	require.NoError(t, declcfg.DecodeStream(strings.NewReader(text), func(b json.RawMessage, _ int) error {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		blobs = append(blobs, m)
		return nil
	}))
	return blobs
}

// clearLikeOPM applies to olmcat's bundle blob what opm's semver modes
// did to the database (ClearNonHeadBundles): a bundle whose recording
// has no objects loses its olm.bundle.object properties and the related
// images named from its CSV keep only their images. The difference is
// listed in MIGRATION.md; everything else must still match.
func clearLikeOPM(want, got map[string]any) {
	if want["schema"] != declcfg.SchemaBundle || hasObjects(want) || !hasObjects(got) {
		return
	}
	var props []any
	for _, p := range got["properties"].([]any) {
		if p.(map[string]any)["type"] != "olm.bundle.object" {
			props = append(props, p)
		}
	}
	got["properties"] = props
	if ri, ok := got["relatedImages"].([]any); ok {
		for _, r := range ri {
			r.(map[string]any)["name"] = ""
		}
	}
}

func hasObjects(blob map[string]any) bool {
	props, _ := blob["properties"].([]any)
	for _, p := range props {
		if p.(map[string]any)["type"] == "olm.bundle.object" {
			return true
		}
	}
	return false
}

// migrateDifferences removes from a blob what olmcat migrate writes on
// purpose beyond opm migrate (MIGRATION.md, "What changes compared with
// opm migrate"; migrate/fixtures_test.go checks them): the package
// description, olm.label.required and olm.constraint properties, and
// related image names.
func migrateDifferences(blob map[string]any) {
	switch blob["schema"] {
	case declcfg.SchemaPackage:
		delete(blob, "description")
	case declcfg.SchemaBundle:
		props, _ := blob["properties"].([]any)
		var kept []any
		for _, p := range props {
			if typ := p.(map[string]any)["type"]; typ != declcfg.PropertyLabelRequired && typ != declcfg.PropertyConstraint {
				kept = append(kept, p)
			}
		}
		blob["properties"] = kept
		ris, _ := blob["relatedImages"].([]any)
		for _, ri := range ris {
			ri.(map[string]any)["name"] = ""
		}
	}
}
