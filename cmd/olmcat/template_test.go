package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg/template"
	"github.com/operator-catalog/olmcat/internal/testutil/bundleimages"
	"github.com/operator-catalog/olmcat/internal/testutil/catalogtest"
	"github.com/operator-catalog/olmcat/internal/testutil/dbbuild"
	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
	"github.com/operator-catalog/olmcat/migrate"
)

const (
	templateData  = "../../declcfg/template/testdata/templates"
	templateOPM   = "../../declcfg/template/testdata/opm"
	fixtureBundle = "../../fixtures/bundles"
)

// fixtureRegistry pushes every fixture bundle directory as a bundle image
// to a loopback registry and returns the image flags that make the
// fixtures' own image names (127.0.0.1:5000/...) resolve there through a
// registries.conf mirror.
func fixtureRegistry(t *testing.T) []string {
	t.Helper()
	reg := imagetest.New(t)
	refs, err := bundleimages.FixtureRefs(fixtureBundle)
	require.NoError(t, err)
	require.NoError(t, bundleimages.PushFixtures(reg.Host, fixtureBundle, refs, remote.WithTransport(reg.Server.Client().Transport)))
	conf := filepath.Join(t.TempDir(), "registries.conf")
	require.NoError(t, os.WriteFile(conf, []byte(bundleimages.MirrorConf(reg.Host)), 0o644))
	return []string{"--registries-conf", conf, "--image-cache-dir", t.TempDir()}
}

func readGolden(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(templateOPM, name))
	require.NoError(t, err)
	return string(data)
}

// TestRenderTemplateFromImages renders templates whose bundles are images
// pulled from a loopback registry, each type, and compares with what opm
// printed for the same templates and images.
func TestRenderTemplateFromImages(t *testing.T) {
	flags := fixtureRegistry(t)
	for _, tc := range []struct {
		args   []string
		golden string
	}{
		{[]string{filepath.Join(templateData, "basic-small-fbb.json")}, "render-basic-small-fbb.json"},
		{[]string{"basic", filepath.Join(templateData, "basic-small-fbb.json"), "-o", "yaml"}, "render-basic-small-fbb.yaml"},
		{[]string{"semver", filepath.Join(templateData, "foo-semver-both.yaml"), "-o", "yaml"}, "render-semver-foo-both.yaml"},
		{[]string{filepath.Join(templateData, "cockroachdb-semver.json"), "--migrate-level", "bundle-object-to-csv-metadata"}, "render-semver-cockroachdb.json"},
		{[]string{filepath.Join(templateData, "substitutes-prometheus.json"), "--migrate-level", "bundle-object-to-csv-metadata"}, "render-substitutes-prometheus.json"},
		{[]string{filepath.Join(templateData, "basic-small-fbb.json"), "-o", "mermaid"}, "render-basic-small-fbb.mermaid"},
		{[]string{"semver", filepath.Join(templateData, "foo-semver-both.yaml"), "-o", "mermaid"}, "render-semver-foo-both.mermaid"},
		{[]string{filepath.Join(templateData, "substitutes-prometheus.json"), "-o", "mermaid"}, "render-substitutes-prometheus.mermaid"},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, append(append([]string{"alpha", "render-template"}, tc.args...), flags...)...)
			require.Equal(t, 0, code, stderr)
			require.Equal(t, readGolden(t, tc.golden), stdout)
		})
	}
}

// TestRenderTemplateBadTemplates: a bad template fails with exit 1, an
// error naming the template file, entry and field, and no output.
func TestRenderTemplateBadTemplates(t *testing.T) {
	flags := fixtureRegistry(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name, template, want string
	}{
		{"unknown-schema.yaml", "schema: olm.bogus\n", `unknown-schema.yaml: schema: unknown template schema "olm.bogus"`},
		{"missing-image.yaml", "schema: olm.semver\nstable:\n  bundles:\n  - image: 127.0.0.1:5000/test/foo-bundle:v9.9.9\n", `missing-image.yaml: stable.bundles[0]: image: render "127.0.0.1:5000/test/foo-bundle:v9.9.9"`},
		{"other-package.yaml", "schema: olm.semver\nstable:\n  bundles:\n  - image: 127.0.0.1:5000/test/foo-bundle:v0.1.0\n  - image: 127.0.0.1:5000/test/bar-bundle:v0.1.0\n", `other-package.yaml: stable.bundles[1]: image: "127.0.0.1:5000/test/bar-bundle:v0.1.0" renders bundle bar.v0.1.0 of package "bar", but this template is for package "foo"`},
		{"twice.yaml", "schema: olm.semver\nfast:\n  bundles:\n  - image: 127.0.0.1:5000/test/foo-bundle:v0.1.0\n  - image: 127.0.0.1:5000/test/foo-bundle:v0.1.0\n", `twice.yaml: fast.bundles[1]: image: duplicate bundle name "foo.v0.1.0": fast.bundles[0] lists it too`},
		{"basic-no-image.yaml", "schema: olm.template.basic\nentries:\n- schema: olm.bundle\n", `basic-no-image.yaml: entries[0]: image: missing`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			require.NoError(t, os.WriteFile(p, []byte(tc.template), 0o644))
			stdout, stderr, code := runCLI(t, append([]string{"alpha", "render-template", p}, flags...)...)
			require.Equal(t, 1, code, stderr)
			require.Empty(t, stdout)
			require.Contains(t, stderr, "rendering template: "+filepath.Join(dir, tc.want))
		})
	}
	_, stderr, code := runCLI(t, "alpha", "render-template", "bogus", "x.yaml")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `invalid template type "bogus", must be one of: [basic semver substitutes]`)
	_, stderr, code = runCLI(t, "alpha", "render-template", "x.yaml", "-o", "xml")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `invalid --output value "xml", expected (json|yaml|mermaid)`)
}

// TestConvertTemplateInputs converts the small-fbb catalog given as a
// file, a directory and the legacy index it was migrated from; each is
// what opm convert-template printed for the file.
func TestConvertTemplateInputs(t *testing.T) {
	want := readGolden(t, "convert-basic-small-fbb.json")
	for _, in := range []string{
		filepath.Join(templateData, "small-fbb.catalog.json"),
		"../../fixtures/legacy/small-fbb/opm-migrate",
		"../../fixtures/legacy/small-fbb/index.db",
	} {
		t.Run(filepath.Base(in), func(t *testing.T) {
			stdout, stderr, code := runCLI(t, "alpha", "convert-template", "basic", in)
			require.Equal(t, 0, code, stderr)
			require.Equal(t, want, stdout)
			require.Equal(t, strings.HasSuffix(in, ".db"), strings.Contains(stderr, "deprecated"), stderr)
		})
	}
	stdout, stderr, code := runCLI(t, "alpha", "convert-template", "substitutes", filepath.Join(templateData, "prometheus-csvmetadata.catalog.json"), "-o", "yaml")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, readGolden(t, "convert-substitutes-prometheus.yaml"), stdout)
	_, stderr, code = runCLI(t, "alpha", "convert-template", "semver", "x")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `unknown command "semver"`)
}

// TestMigrateToTemplateRenderBack migrates each fixture whose bundles are
// in fixtures/bundles to semver templates (falling back to basic, with
// the reason) and lets --verify render them back from the bundle images:
// parity --strict finds the result identical to the migrated catalog, but
// for the manifests the index had cleared (missing-manifests repairs),
// which the images restore.
func TestMigrateToTemplateRenderBack(t *testing.T) {
	flags := fixtureRegistry(t)
	for _, tc := range []struct {
		fixture   string
		packages  []string
		identical bool
	}{
		{"edge-before-substitutes", []string{"etcd", "prometheus"}, true},
		{"edge-substitutes", []string{"etcd", "prometheus"}, true},
		{"small-fbb", []string{"bar", "baz", "foo"}, false},
		{"community-bundles", nil, false},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "templates")
			report := filepath.Join(t.TempDir(), "report.json")
			args := append([]string{"migrate", "--to-template", "semver", "--verify", "--report", report, "-o", "yaml",
				"../../fixtures/legacy/" + tc.fixture + "/index.db", out}, flags...)
			_, stderr, code := runCLI(t, args...)
			require.Equal(t, 0, code, stderr)
			var rep migrate.Report
			data, err := os.ReadFile(report)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(data, &rep))
			verified := ""
			for _, n := range rep.Notes {
				if n.Kind == migrate.NoteTemplatesVerified {
					verified = n.Detail
				}
			}
			require.Contains(t, verified, "a strict parity check finds identical to the migrated one")
			require.Equal(t, tc.identical, strings.Contains(verified, "no difference"), verified)
			for _, tf := range rep.Templates {
				require.Equal(t, template.TypeBasic, tf.Type)
				require.Equal(t, template.ReasonChannelName, tf.Reason, tf.Detail)
				require.FileExists(t, filepath.Join(out, tf.File))
			}
			if tc.packages != nil {
				var got []string
				for _, tf := range rep.Templates {
					got = append(got, tf.Package)
				}
				require.Equal(t, tc.packages, got)
			}
		})
	}
}

// TestMigrateToTemplateVerifyFails: when a bundle image cannot be pulled
// the verification fails, exit 1, and nothing is written.
func TestMigrateToTemplateVerifyFails(t *testing.T) {
	reg := imagetest.New(t) // empty: no bundle image to pull
	conf := filepath.Join(t.TempDir(), "registries.conf")
	require.NoError(t, os.WriteFile(conf, []byte(bundleimages.MirrorConf(reg.Host)), 0o644))
	out := filepath.Join(t.TempDir(), "templates")
	_, stderr, code := runCLI(t, "migrate", "--to-template", "basic", "--verify", "--registries-conf", conf, "--no-image-cache",
		"../../fixtures/legacy/edge-before-substitutes/index.db", out)
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "verify: render etcd.json: entries[")
	require.NoDirExists(t, out)
	_, stderr, code = runCLI(t, "migrate", "--to-template", "substitutes", "../../fixtures/legacy/edge-before-substitutes/index.db", out)
	require.Equal(t, 2, code, stderr)
}

// TestMigrateToTemplateGeneratedIndex: a generated index of 1,000
// bundles, each pushed as a bundle image under the name the index gives
// it; its templates render back to a catalog parity --strict finds
// identical to the migrated one.
func TestMigrateToTemplateGeneratedIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("pushes and pulls 1,000 bundle images")
	}
	bundles := catalogtest.MustGenerate(t, catalogtest.WithBundles(1000),
		catalogtest.LegacyBenchIndex(filepath.Join(fixtureBundle, "opm-bundles", "etcd.0.9.2"))).DBBundles()
	db := filepath.Join(t.TempDir(), "index.db")
	require.NoError(t, dbbuild.Build(context.Background(), db, 13, bundles))
	reg := imagetest.New(t)
	require.NoError(t, bundleimages.DBBundles(reg.Host, bundles, remote.WithTransport(reg.Server.Client().Transport)))
	conf := filepath.Join(t.TempDir(), "registries.conf")
	require.NoError(t, os.WriteFile(conf, []byte(bundleimages.MirrorConf(reg.Host, "example.com/olmcat-bench")), 0o644))

	out := filepath.Join(t.TempDir(), "templates")
	report := filepath.Join(t.TempDir(), "report.json")
	_, stderr, code := runCLI(t, "migrate", "--to-template", "semver", "--verify", "--report", report,
		"--registries-conf", conf, "--image-cache-dir", t.TempDir(), db, out)
	require.Equal(t, 0, code, stderr)
	var rep migrate.Report
	data, err := os.ReadFile(report)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &rep))
	require.Len(t, rep.Templates, 40)
	for _, tf := range rep.Templates {
		require.Equal(t, template.ReasonChannelName, tf.Reason, tf.Detail)
	}
	require.Contains(t, stderr, "verified: rendering the 40 templates back (bundle images pulled) gives a catalog that a strict parity check finds identical to the migrated one")
	require.Contains(t, stderr, "no difference")
}
