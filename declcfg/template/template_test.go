package template

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/bundle"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/graph"
	"github.com/operator-catalog/olmcat/internal/testutil/bundleimages"
)

const (
	templatesDir = "testdata/templates"
	goldenDir    = "testdata/opm" // recorded by scripts/record-template-goldens.sh
	bundlesRoot  = "../../fixtures/bundles"
)

// fixtureRenderer renders the fixtures' bundle image references from the
// bundle directories behind them, as a pull of those images renders them
// (the CLI tests pull the same bundles from a loopback registry).
func fixtureRenderer(csvMetadata bool) BundleRenderer {
	return func(_ context.Context, ref string) (*declcfg.Bundle, error) {
		dir := bundleimages.FixtureDir(ref)
		if dir == "" {
			return nil, os.ErrNotExist
		}
		b, _, err := bundle.FromFS(os.DirFS(filepath.Join(bundlesRoot, dir)), bundle.WithImage(ref), bundle.WithCSVMetadata(csvMetadata))
		return &b, err
	}
}

func renderFile(t *testing.T, file string, csvMetadata bool, opts ...Option) (*declcfg.DeclarativeConfig, error) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(templatesDir, file))
	require.NoError(t, err)
	opts = append([]Option{WithFile(file), WithRefRoot(templatesDir), WithBundleRenderer(fixtureRenderer(csvMetadata))}, opts...)
	return Render(context.Background(), data, opts...)
}

// renderFileTo is renderFile through RenderTo, bundles spilled to a
// temporary directory that is empty again afterwards.
func renderFileTo(t *testing.T, file string, csvMetadata bool, f declcfg.Format, opts ...Option) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(templatesDir, file))
	require.NoError(t, err)
	opts = append([]Option{WithFile(file), WithRefRoot(templatesDir), WithBundleRenderer(fixtureRenderer(csvMetadata))}, opts...)
	var buf bytes.Buffer
	dir := t.TempDir()
	require.NoError(t, RenderTo(context.Background(), &buf, f, data, dir, opts...))
	left, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, left, "the spill file is removed")
	return buf.String()
}

// formatMermaid stands for render-template's -o mermaid: the upgrade graph
// drawn as opm alpha render-graph draws it.
const formatMermaid declcfg.Format = "mermaid"

func write(t *testing.T, cfg *declcfg.DeclarativeConfig, f declcfg.Format) string {
	t.Helper()
	var buf bytes.Buffer
	if f == formatMermaid {
		g, err := graph.Build(cfg)
		require.NoError(t, err)
		require.NoError(t, graph.WriteMermaid(&buf, g, graph.MermaidV0Semantics(true)))
		return buf.String()
	}
	require.NoError(t, declcfg.WriteStream(&buf, cfg, f, declcfg.KeepEntryOrder()))
	return buf.String()
}

func golden(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(goldenDir, name))
	require.NoError(t, err)
	return string(data)
}

// TestRenderMatchesOPM renders each recorded template of every type and
// compares the output with what opm v1.73.0 printed for it.
func TestRenderMatchesOPM(t *testing.T) {
	for _, tc := range []struct {
		template    string
		typ         Type
		csvMetadata bool
		format      declcfg.Format
		golden      string
	}{
		{template: "basic-small-fbb.json", format: "json", golden: "render-basic-small-fbb.json"},
		{template: "basic-small-fbb.json", format: "yaml", golden: "render-basic-small-fbb.yaml"},
		{template: "foo-semver-both.yaml", format: "json", golden: "render-semver-foo-both.json"},
		{template: "foo-semver-both.yaml", typ: TypeSemver, format: "yaml", golden: "render-semver-foo-both.yaml"},
		{template: "foo-semver-major.yaml", format: "json", golden: "render-semver-foo-major.json"},
		{template: "foo-semver-minor.yaml", format: "json", golden: "render-semver-foo-minor.json"},
		{template: "foo-semver-prefmajor.yaml", format: "json", golden: "render-semver-foo-prefmajor.json"},
		{template: "cockroachdb-semver.json", csvMetadata: true, format: "json", golden: "render-semver-cockroachdb.json"},
		{template: "substitutes-prometheus.json", csvMetadata: true, format: "json", golden: "render-substitutes-prometheus.json"},
		{template: "substitutes-prometheus.json", csvMetadata: true, format: "yaml", golden: "render-substitutes-prometheus.yaml"},
		{template: "basic-small-fbb.json", format: formatMermaid, golden: "render-basic-small-fbb.mermaid"},
		{template: "foo-semver-both.yaml", format: formatMermaid, golden: "render-semver-foo-both.mermaid"},
		{template: "cockroachdb-semver.json", csvMetadata: true, format: formatMermaid, golden: "render-semver-cockroachdb.mermaid"},
		{template: "substitutes-prometheus.json", csvMetadata: true, format: formatMermaid, golden: "render-substitutes-prometheus.mermaid"},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			var opts []Option
			if tc.typ != "" {
				opts = append(opts, WithType(tc.typ))
			}
			cfg, err := renderFile(t, tc.template, tc.csvMetadata, opts...)
			require.NoError(t, err)
			assert.Empty(t, cmp.Diff(golden(t, tc.golden), write(t, cfg, tc.format)), "render differs from opm's (-opm +olmcat)")
			if tc.format != formatMermaid {
				assert.Empty(t, cmp.Diff(golden(t, tc.golden), renderFileTo(t, tc.template, tc.csvMetadata, tc.format, opts...)),
					"RenderTo differs from opm's (-opm +olmcat)")
				return
			}
			data, err := os.ReadFile(filepath.Join(templatesDir, tc.template))
			require.NoError(t, err)
			opts = append([]Option{WithFile(tc.template), WithRefRoot(templatesDir), WithBundleRenderer(fixtureRenderer(tc.csvMetadata))}, opts...)
			lean, err := RenderStandIns(context.Background(), data, opts...)
			require.NoError(t, err)
			assert.Empty(t, cmp.Diff(golden(t, tc.golden), write(t, lean, tc.format)), "RenderStandIns draws another graph (-opm +olmcat)")
		})
	}
}

// TestConvertMatchesOPM converts recorded catalogs as opm alpha
// convert-template did.
func TestConvertMatchesOPM(t *testing.T) {
	for _, tc := range []struct {
		catalog string
		typ     Type
		format  declcfg.Format
		golden  string
	}{
		{"small-fbb.catalog.json", TypeBasic, "json", "convert-basic-small-fbb.json"},
		{"small-fbb.catalog.json", TypeBasic, "yaml", "convert-basic-small-fbb.yaml"},
		{"prometheus-csvmetadata.catalog.json", TypeSubstitutes, "json", "convert-substitutes-prometheus.json"},
		{"prometheus-csvmetadata.catalog.json", TypeSubstitutes, "yaml", "convert-substitutes-prometheus.yaml"},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			f, err := os.Open(filepath.Join(templatesDir, tc.catalog))
			require.NoError(t, err)
			defer f.Close()
			var buf bytes.Buffer
			require.NoError(t, Convert(&buf, f, tc.typ, tc.format))
			assert.Empty(t, cmp.Diff(golden(t, tc.golden), buf.String()), "convert differs from opm's (-opm +olmcat)")
		})
	}
}

// TestConvertThenRender: a catalog converted to a basic template renders
// back to the same blobs.
func TestConvertThenRender(t *testing.T) {
	f, err := os.Open(filepath.Join(templatesDir, "small-fbb.catalog.json"))
	require.NoError(t, err)
	defer f.Close()
	var tmpl bytes.Buffer
	require.NoError(t, Convert(&tmpl, f, TypeBasic, declcfg.FormatYAML))
	cfg, err := Render(context.Background(), tmpl.Bytes(), WithBundleRenderer(fixtureRenderer(false)))
	require.NoError(t, err)
	require.Equal(t, golden(t, "render-basic-small-fbb.json"), write(t, cfg, declcfg.FormatJSON))
}

func TestDetect(t *testing.T) {
	for in, want := range map[string]Type{
		`{"schema": "olm.template.basic"}`:        TypeBasic,
		"schema: olm.semver\n---\nschema: x\n":    TypeSemver,
		"schema: olm.template.substitutes\n":      TypeSubstitutes,
		"# comment\nschema: olm.template.basic\n": TypeBasic,
	} {
		got, err := Detect([]byte(in))
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	_, err := Detect([]byte("schema: olm.bogus\n"))
	require.ErrorContains(t, err, `unknown template schema "olm.bogus"`)
	_, err = Detect([]byte("entries: []\n"))
	require.ErrorContains(t, err, "template input missing required 'schema' field")
	_, err = ParseType("bogus")
	require.EqualError(t, err, `invalid template type "bogus", must be one of: [basic semver substitutes]`)
}
