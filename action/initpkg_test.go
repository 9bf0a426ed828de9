package action_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/image"
)

// opmCLI holds the files of the recorded opm command lines.
const opmCLI = "../fixtures/opmcli"

// TestInit makes package blobs: bare, with a PNG icon, an SVG icon (which
// content sniffing takes for text) and a description; a text file is no
// icon, a missing description fails.
func TestInit(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "icon.svg")
	require.NoError(t, os.WriteFile(svg, []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>`), 0o644))
	readme, err := os.ReadFile(filepath.Join(opmCLI, "README.md"))
	require.NoError(t, err)
	for _, tc := range []struct {
		name      string
		init      action.Init
		mediaType string
		errorHas  string
	}{
		{name: "bare", init: action.Init{Package: "foo"}},
		{name: "png", init: action.Init{Package: "foo", DefaultChannel: "stable", IconFile: filepath.Join(opmCLI, "icon.png"),
			DescriptionFile: filepath.Join(opmCLI, "README.md")}, mediaType: "image/png"},
		{name: "svg", init: action.Init{Package: "foo", IconFile: svg}, mediaType: "image/svg+xml"},
		{name: "not an icon", init: action.Init{Package: "foo", IconFile: filepath.Join(opmCLI, "not-an-icon.txt")},
			errorHas: `detected invalid type "": not an image`},
		{name: "no description", init: action.Init{Package: "foo", DescriptionFile: filepath.Join(opmCLI, "missing.md")},
			errorHas: "open description file: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := tc.init.Run(context.Background())
			if tc.errorHas != "" {
				require.ErrorContains(t, err, tc.errorHas)
				return
			}
			require.NoError(t, err)
			b := res.Blob
			require.Equal(t, []string{"olm.package", "foo", tc.init.DefaultChannel}, []string{b.Schema, b.Name, b.DefaultChannel})
			if tc.mediaType == "" {
				require.Nil(t, b.Icon)
			} else {
				require.Equal(t, tc.mediaType, b.Icon.MediaType)
			}
			if tc.init.DescriptionFile != "" {
				require.Equal(t, string(readme), b.Description)
			}
		})
	}
}

// TestGenerateDockerfile writes opm's Dockerfile beside a catalog
// directory, and refuses to replace it (a usage error, not an existing
// output the caller may offer to replace).
func TestGenerateDockerfile(t *testing.T) {
	want, err := os.ReadFile("../image/testdata/catalog.Dockerfile")
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "catalog")
	require.NoError(t, os.Mkdir(dir, 0o755))
	g := action.GenerateDockerfile{Dir: dir, Options: image.DockerfileOptions{BaseImage: "registry.example.com/operator-framework/opm:latest"}}
	res, err := g.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, dir+".Dockerfile", res.Path)
	got, err := os.ReadFile(res.Path)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
	_, err = g.Run(context.Background())
	requireActionError(t, err, action.KindUsage, "")
	require.ErrorContains(t, err, "file already exists (remove it first)")
}
