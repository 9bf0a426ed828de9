package action_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"text/template"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/migrate"
)

// legacyRecorder is a Legacy whose calls are kept.
type legacyRecorder struct{ deprecated, converted []string }

func (l *legacyRecorder) legacy() action.Legacy {
	return action.Legacy{
		Deprecated: func(_ context.Context, ref, _ string) { l.deprecated = append(l.deprecated, ref) },
		Converted: func(ref string, rep *migrate.Report, err error) {
			if rep != nil && err == nil {
				l.converted = append(l.converted, ref)
			}
		},
	}
}

// renderedDir is the stream of catalog directory dir as WriteStream
// writes it.
func renderedDir(t *testing.T, dir string, f declcfg.Format) string {
	t.Helper()
	cfg, err := declcfg.LoadDir(context.Background(), dir)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, declcfg.WriteStream(&buf, cfg, f))
	return buf.String()
}

// TestRender renders each kind of input: a directory streamed as
// WriteStream writes it whole, a sqlite index converted (Legacy told),
// bundle directories as their olm.bundle blobs, named by the image
// reference template; an empty file and bad options fail.
func TestRender(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.json")
	require.NoError(t, os.WriteFile(empty, []byte("\n"), 0o644))
	bar := filepath.Join(bundles, "small-fbb/bar-bundle-v0.1.0")
	baz := filepath.Join(bundles, "small-fbb/baz-bundle-v1.0.0")
	for _, tc := range []struct {
		name     string
		r        action.Render
		want     func(t *testing.T, out string)
		legacy   []string
		kind     action.Kind
		option   string
		errorHas string
	}{
		{name: "directory", r: action.Render{Refs: []string{smallCatalog}, Format: declcfg.FormatYAML},
			want: func(t *testing.T, out string) {
				require.Equal(t, renderedDir(t, smallCatalog, declcfg.FormatYAML), out)
			}},
		{name: "sqlite index", r: action.Render{Refs: []string{smallIndex}}, legacy: []string{smallIndex},
			want: func(t *testing.T, out string) { require.Equal(t, []string{"bar", "baz", "foo"}, packagesOf(t, out)) }},
		{name: "bundle directories", r: action.Render{Refs: []string{bar, baz},
			ImageRefTemplate: template.Must(template.New("").Parse("example.com/{{.Package}}:v{{.Version}}"))},
			want: func(t *testing.T, out string) {
				cfg := parse(t, out)
				require.Len(t, cfg.Bundles, 2)
				require.Equal(t, []string{"example.com/bar:v0.1.0", "example.com/baz:v1.0.0"}, []string{cfg.Bundles[0].Image, cfg.Bundles[1].Image})
			}},
		{name: "empty file", r: action.Render{Refs: []string{empty}}, errorHas: "the file holds no blob"},
		{name: "unknown level", r: action.Render{Refs: []string{smallCatalog}, MigrateLevel: "bogus"},
			kind: action.KindUsage, option: "Render.MigrateLevel"},
		{name: "template fails", r: action.Render{Refs: []string{bar},
			ImageRefTemplate: template.Must(template.New("").Option("missingkey=error").Parse("{{.Bogus}}"))},
			option: "Render.ImageRefTemplate", errorHas: "render " + bar + ": "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			var l legacyRecorder
			tc.r.Out, tc.r.Legacy = &out, l.legacy()
			_, err := tc.r.Run(context.Background())
			if tc.want == nil {
				requireActionError(t, err, tc.kind, tc.option)
				require.ErrorContains(t, err, tc.errorHas)
				require.Empty(t, out.String())
				return
			}
			require.NoError(t, err)
			tc.want(t, out.String())
			require.Equal(t, tc.legacy, l.deprecated)
			require.Equal(t, tc.legacy, l.converted)
		})
	}
}

// TestRenderLoad loads inputs a caller resolved: what Run would merge.
func TestRenderLoad(t *testing.T) {
	ctx := context.Background()
	for _, ref := range []string{smallCatalog, smallIndex, filepath.Join(smallCatalog, "bar", "catalog.json")} {
		t.Run(filepath.Base(ref), func(t *testing.T) {
			in, err := input.Resolve(ctx, ref, input.Either)
			require.NoError(t, err)
			defer in.Close()
			cfg, err := action.Render{}.Load(ctx, ref, in)
			require.NoError(t, err)
			require.NotEmpty(t, cfg.Bundles)
		})
	}
}

// parse parses a JSON blob stream.
func parse(t *testing.T, stream string) *declcfg.DeclarativeConfig {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "catalog.json"), []byte(stream), 0o644))
	cfg, err := declcfg.LoadDir(context.Background(), dir)
	require.NoError(t, err)
	return cfg
}

// packagesOf are the package names of a blob stream, in order.
func packagesOf(t *testing.T, stream string) []string {
	t.Helper()
	var out []string
	for _, p := range parse(t, stream).Packages {
		out = append(out, p.Name)
	}
	return out
}
