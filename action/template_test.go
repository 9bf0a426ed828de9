package action_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/template"
	"github.com/operator-catalog/olmcat/image"
)

// templateData holds templates and what opm printed of them.
const templateData = "../declcfg/template/testdata"

// TestRenderTemplate renders basic templates whose bundles are bundle
// directories (from a file and from In); a catalog directory where a
// bundle is wanted, a missing file and bad image options fail.
func TestRenderTemplate(t *testing.T) {
	bar, err := filepath.Abs(filepath.Join(bundles, "small-fbb/bar-bundle-v0.1.0"))
	require.NoError(t, err)
	cat, err := filepath.Abs(smallCatalog)
	require.NoError(t, err)
	basic := func(ref string) string {
		return `{"schema": "olm.template.basic", "entries": [
			{"schema": "olm.package", "name": "bar", "defaultChannel": "alpha"},
			{"schema": "olm.channel", "package": "bar", "name": "alpha", "entries": [{"name": "bar.v0.1.0"}]},
			{"schema": "olm.bundle", "image": "` + ref + `"}]}`
	}
	file := filepath.Join(t.TempDir(), "template.json")
	require.NoError(t, os.WriteFile(file, []byte(basic(bar)), 0o644))
	errOptions := errors.New("bad image options")
	for _, tc := range []struct {
		name     string
		r        action.RenderTemplate
		errorHas string
		err      error
	}{
		{name: "file", r: action.RenderTemplate{File: file}},
		{name: "stdin", r: action.RenderTemplate{File: "-", In: strings.NewReader(basic(bar)), Type: template.TypeBasic}},
		{name: "catalog directory", r: action.RenderTemplate{In: strings.NewReader(basic(cat))},
			errorHas: "directory " + cat + " is not a bundle (no manifests/ and metadata/)"},
		{name: "missing file", r: action.RenderTemplate{File: file + ".missing"}, errorHas: "unable to open input"},
		{name: "image options", r: action.RenderTemplate{File: file + ".missing",
			Env: action.Env{ImageOptions: func() ([]image.Option, error) { return nil, errOptions }}}, err: errOptions},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := tc.r.Run(context.Background())
			switch {
			case tc.err != nil:
				require.ErrorIs(t, err, tc.err)
			case tc.errorHas != "":
				require.ErrorContains(t, err, tc.errorHas)
			default:
				require.NoError(t, err)
				require.Len(t, res.Config.Bundles, 1)
				require.Equal(t, "bar.v0.1.0", res.Config.Bundles[0].Name)
				require.Empty(t, res.Config.Bundles[0].Image, "a bundle directory has no image")
			}
		})
	}
}

// TestConvertTemplate converts the small-fbb catalog given as a file,
// from In, as a directory and as the legacy index it was migrated from
// (Legacy told): each is what opm convert-template printed for the file.
func TestConvertTemplate(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(templateData, "opm/convert-basic-small-fbb.json"))
	require.NoError(t, err)
	file := filepath.Join(templateData, "templates/small-fbb.catalog.json")
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		c      action.ConvertTemplate
		legacy []string
	}{
		{name: "file", c: action.ConvertTemplate{Ref: file}},
		{name: "stdin", c: action.ConvertTemplate{Ref: "-", In: bytes.NewReader(data)}},
		{name: "directory", c: action.ConvertTemplate{Ref: smallCatalog}},
		{name: "sqlite index", c: action.ConvertTemplate{Ref: smallIndex}, legacy: []string{smallIndex}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			var l legacyRecorder
			tc.c.Out, tc.c.Legacy, tc.c.Type, tc.c.Format = &out, l.legacy(), template.TypeBasic, declcfg.FormatJSON
			_, err := tc.c.Run(context.Background())
			require.NoError(t, err)
			require.Equal(t, string(want), out.String())
			require.Equal(t, tc.legacy, l.deprecated)
			require.Equal(t, tc.legacy, l.converted)
		})
	}
	var out bytes.Buffer
	_, err = action.ConvertTemplate{Ref: "-", In: strings.NewReader("{"), Type: template.TypeBasic, Out: &out}.Run(context.Background())
	require.ErrorContains(t, err, "converting -: ")
	require.Empty(t, out.String(), "nothing is written unless the whole template converts")
}
