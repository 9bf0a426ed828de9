package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDispatchByName: argv[0] picks the program. As opm (the /bin/opm of
// olmcat's images, which OLM and opm's Dockerfiles exec) it runs opm's
// command tree under opm's name; as anything else but the probe, olmcat.
func TestDispatchByName(t *testing.T) {
	catalog := "../../fixtures/legacy/small-fbb/opm-migrate"
	for _, tc := range []struct {
		name       string
		argv       []string
		code       int
		wantOut    string
		wantStderr string
	}{
		{"opm help", []string{"/bin/opm", "--help"}, 0, "Usage:\n  opm [flags]\n  opm [command]", ""},
		{"opm serve", []string{"/bin/opm", "serve", "--help"}, 0, "opm serve <dir|index.db|image> [flags]", ""},
		{"opm registry serve", []string{"opm", "registry", "serve", "--help"}, 0, "opm registry serve [flags]", ""},
		{"opm alpha bundle extract", []string{"opm", "alpha", "bundle", "extract", "--help"}, 0, "opm alpha bundle extract -c <configmap>", ""},
		{"opm index add", []string{"opm", "index", "add", "--help"}, 0, "opm index add [flags]", ""},
		{"opm unknown command", []string{"opm", "nope"}, exitUsage, "", `unknown command "nope" for "opm"`},
		{"olmcat", []string{"/usr/local/bin/olmcat", "--help"}, 0, "Usage:\n  olmcat [flags]", ""},
		{"another name", []string{"./olmcat-linux-amd64", "nope"}, exitUsage, "", `unknown command "nope" for "olmcat"`},
		{"no argv", nil, 0, "Usage:\n  olmcat [flags]", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, stderr bytes.Buffer
			code := dispatch(context.Background(), tc.argv, &out, &stderr)
			require.Equal(t, tc.code, code, stderr.String())
			assert.Contains(t, out.String(), tc.wantOut)
			assert.Contains(t, stderr.String(), tc.wantStderr)
		})
	}

	// The same command under both names gives the same result.
	var asOPM, asOPMErr bytes.Buffer
	require.Equal(t, 0, dispatch(context.Background(), []string{"/bin/opm", "render", catalog, "-o", "json"}, &asOPM, &asOPMErr), asOPMErr.String())
	want, _, code := runCLI(t, "render", catalog, "-o", "json")
	require.Equal(t, 0, code)
	assert.Equal(t, want, asOPM.String())
}
