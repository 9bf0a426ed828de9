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

func TestAppendIndentedMatchesIndent(t *testing.T) {
	cases := append([]string{`{}`, `[]`, `{"a":[]}`, `{"a":{},"b":[1,{"c":"x,y:{}"}]}`, `"s"`, `1`, `[ 1 , { "a" : "b" } ]`, `{"q":"a\"b\\"}`}, validCases...)
	for _, c := range cases {
		if !json.Valid([]byte(c)) || len(c) > 1000 {
			continue // deep nesting indents quadratically: not a property value
		}
		var want bytes.Buffer
		require.NoError(t, json.Indent(&want, compactJSON(t, c), "            ", "    "))
		assert.Equal(t, want.String(), string(appendIndented(nil, []byte(c), 3)), "%.60q", c)
	}
}

func compactJSON(t *testing.T, s string) []byte {
	var buf bytes.Buffer
	require.NoError(t, json.Compact(&buf, []byte(s)))
	return buf.Bytes()
}

func FuzzAppendIndented(f *testing.F) {
	for _, c := range validCases {
		if len(c) <= 1000 {
			f.Add([]byte(c))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) || len(b) > 1000 {
			return
		}
		var compact, want bytes.Buffer
		if err := json.Compact(&compact, b); err != nil {
			t.Fatal(err)
		}
		if err := json.Indent(&want, compact.Bytes(), "            ", "    "); err != nil {
			t.Fatal(err)
		}
		if got := string(appendIndented(nil, b, 3)); got != want.String() {
			t.Fatalf("appendIndented(%q) = %q, want %q", b, got, want.String())
		}
	})
}
