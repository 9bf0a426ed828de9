package migrate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
)

// TestFastJSONMatchesWriteStream checks the hand-written bundle encoder
// against declcfg.WriteStream byte for byte on every fixture, with every
// option that changes the blobs.
func TestFastJSONMatchesWriteStream(t *testing.T) {
	for _, name := range fixtureNames(t) {
		for _, opts := range [][]Option{
			nil,
			{WithKeepDeprecated(true)},
			{WithMigrateLevel(MigrateLevelCSVMetadata)},
		} {
			cfg, _, err := Load(context.Background(), filepath.Join(fixturesDir, name, "index.db"), opts...)
			require.NoError(t, err, name)
			for _, pkg := range cfg.Packages {
				one := packageOnly(cfg, pkg.Name)
				var want bytes.Buffer
				require.NoError(t, declcfg.WriteStream(&want, one, declcfg.FormatJSON))
				var got bytes.Buffer
				bw := bufio.NewWriter(&got)
				require.NoError(t, encodePackageJSON(bw, one))
				require.NoError(t, bw.Flush())
				assert.Equal(t, want.String(), got.String(), "%s/%s", name, pkg.Name)
			}
		}
	}
}

func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", `q"uote`, `back\slash`, "<b>&amp;</b>", "tab\tnl\n", "ünï", "\u2028", "\x01", "bad\xffutf8"} {
		var want bytes.Buffer
		enc := jsonEncoderNoHTML(&want)
		require.NoError(t, enc.Encode(s))
		assert.Equal(t, want.String(), string(appendString(nil, s))+"\n", "%q", s)
	}
}

func packageOnly(cfg *declcfg.DeclarativeConfig, pkg string) *declcfg.DeclarativeConfig {
	out := &declcfg.DeclarativeConfig{}
	for _, p := range cfg.Packages {
		if p.Name == pkg {
			out.Packages = append(out.Packages, p)
		}
	}
	for _, c := range cfg.Channels {
		if c.Package == pkg {
			out.Channels = append(out.Channels, c)
		}
	}
	for _, b := range cfg.Bundles {
		if b.Package == pkg {
			out.Bundles = append(out.Bundles, b)
		}
	}
	for _, d := range cfg.Deprecations {
		if d.Package == pkg {
			out.Deprecations = append(out.Deprecations, d)
		}
	}
	return out
}

func jsonEncoderNoHTML(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}
