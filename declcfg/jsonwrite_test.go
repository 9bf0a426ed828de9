package declcfg

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

func jsonEncoderNoHTML(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

// writeJSONWithEncodingJSON is WriteJSON as encoding/json alone writes it:
// the reference the hand-written bundle encoder must match.
func writeJSONWithEncodingJSON(w io.Writer, cfg *DeclarativeConfig) error {
	enc := newJSONEncoder(w)
	return forEachBlob(cfg, streamOptions{}, func(v any) error { return enc.Encode(v) })
}

func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", `q"uote`, `back\slash`, "<b>&amp;</b>", "tab\tnl\n", "ünï", "\u2028", "\x01", "bad\xffutf8"} {
		var want bytes.Buffer
		enc := jsonEncoderNoHTML(&want)
		require.NoError(t, enc.Encode(s))
		assert.Equal(t, want.String(), string(appendString(nil, s))+"\n", "%q", s)
	}
}

// indentCases are JSON values (valid or not) the indentation and value
// tests feed to the hand-written encoder.
var indentCases = []string{
	`{}`, `[]`, `{"a":[]}`, `{"a":{},"b":[1,{"c":"x,y:{}"}]}`, `"s"`, `1`, `[ 1 , { "a" : "b" } ]`, `{"q":"a\"b\\"}`,
	`{"data":"eyJhIjoxfQ=="}`, ` { "data" : "eyJhIjoxfQ==" } `, `{"data":""}`, `{"data":"a\/b"}`, `{"data":"eyJ","x":1}`,
	`{"ref":"objects/a.yaml"}`, `{"a":"<&>","b":"\u2028"}`, `null`, `true`, `-1.5e3`, `{"a":[[],[{}],{"b":[1,2]}]}`,
	`{"a":1`, `{"data":"eyJ"`, `{"a":}`, `[1,]`, ``, ` `,
}

func TestAppendIndentedMatchesIndent(t *testing.T) {
	for _, c := range indentCases {
		if !json.Valid([]byte(c)) {
			continue
		}
		var want bytes.Buffer
		require.NoError(t, json.Indent(&want, compactJSON(t, c), "            ", "    "))
		assert.Equal(t, want.String(), string(appendIndented(nil, []byte(c), 3)), "%.60q", c)
	}
}

// TestBundleJSONMatchesEncodingJSON checks every property value form,
// valid or not, against encoding/json: same bytes, or an error from both.
func TestBundleJSONMatchesEncodingJSON(t *testing.T) {
	for _, typ := range []string{PropertyBundleObject, PropertyPackage, "x.custom"} {
		for _, c := range append(indentCases, "") {
			var value json.RawMessage
			if c != "" {
				value = json.RawMessage(c)
			}
			cfg := &DeclarativeConfig{Bundles: []Bundle{{
				Schema: SchemaBundle, Name: "a.v1<&>", Package: "a", Image: "img",
				Properties:    []Property{{Type: typ, Value: value}, MustProperty(PropertyPackage, PackageValue{PackageName: "a", Version: "1.0.0"})},
				RelatedImages: []RelatedImage{{Name: "op", Image: "img"}},
			}}}
			var want, got bytes.Buffer
			werr := writeJSONWithEncodingJSON(&want, cfg)
			gerr := WriteJSON(&got, cfg)
			if werr != nil {
				assert.Error(t, gerr, "%s %q", typ, c)
				continue
			}
			require.NoError(t, gerr, "%s %q", typ, c)
			assert.Equal(t, want.String(), got.String(), "%s %q", typ, c)
		}
	}
}

// TestWriteJSONMatchesEncodingJSON compares whole generated catalogs.
func TestWriteJSONMatchesEncodingJSON(t *testing.T) {
	for _, cfg := range []*DeclarativeConfig{genCatalog(t, 3, 5), genRealisticCatalog(t, 2, 3), {Bundles: []Bundle{{Schema: SchemaBundle, Name: "b", Package: "p"}}}} {
		var want, got bytes.Buffer
		require.NoError(t, writeJSONWithEncodingJSON(&want, cfg))
		require.NoError(t, WriteJSON(&got, cfg))
		assert.Equal(t, want.String(), got.String())
	}
}

func compactJSON(t *testing.T, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, json.Compact(&buf, []byte(s)))
	return buf.Bytes()
}

func FuzzAppendIndented(f *testing.F) {
	for _, c := range indentCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) || len(b) > 1000 {
			return
		}
		var compact, want bytes.Buffer
		require.NoError(t, json.Compact(&compact, b))
		require.NoError(t, json.Indent(&want, compact.Bytes(), "            ", "    "))
		require.Equal(t, want.String(), string(appendIndented(nil, b, 3)), "appendIndented(%q)", b)
	})
}

// writeYAMLPlain is WriteYAML without the manifest placeholders: every
// blob's compact JSON through yaml.JSONToYAML.
func writeYAMLPlain(t *testing.T, cfg *DeclarativeConfig) string {
	t.Helper()
	var out, buf bytes.Buffer
	require.NoError(t, forEachBlob(cfg, streamOptions{}, func(v any) error {
		require.NoError(t, encodeCompact(&buf, v))
		y, err := yaml.JSONToYAML(buf.Bytes())
		require.NoError(t, err)
		out.WriteString("---\n")
		out.Write(y)
		return nil
	}))
	return out.String()
}

// TestWriteYAMLMatchesPlainConversion checks the manifest placeholders
// of WriteYAML against converting whole blobs, on manifests of every
// leading character and a blob that holds the placeholder prefix itself.
func TestWriteYAMLMatchesPlainConversion(t *testing.T) {
	odd := genRealisticCatalog(t, 1, 2)
	long := strings.Repeat("QUJD", 40)
	for _, d := range []string{long, "1" + long, "+" + long, "/" + long, "9e9" + long[3:], "eyJ", "e", "y" + strings.Repeat("A", 200) + "=="} {
		odd.Bundles[0].Properties = append(odd.Bundles[0].Properties, Property{Type: PropertyBundleObject, Value: json.RawMessage(`{"data":"` + d + `"}`)})
	}
	odd.Bundles[1].Properties = append(odd.Bundles[1].Properties, MustProperty(PropertyLabel, LabelValue{Label: placeholder(0)}))
	odd.Bundles[1].Image = placeholderPrefix
	for _, cfg := range []*DeclarativeConfig{genCatalog(t, 2, 3), genRealisticCatalog(t, 2, 3), odd} {
		var got bytes.Buffer
		require.NoError(t, WriteYAML(&got, cfg))
		assert.Equal(t, writeYAMLPlain(t, cfg), got.String())
	}
}

func TestRestoreManifests(t *testing.T) {
	m := [][]byte{[]byte("AAA"), []byte("BBB")}
	out, ok := restoreManifests([]byte("a: "+placeholder(1)+"\nb: "+placeholder(0)+"\n"), m)
	require.True(t, ok)
	assert.Equal(t, "a: BBB\nb: AAA\n", string(out))
	for _, y := range []string{
		"a: " + placeholder(0) + "\n",                            // one missing
		"a: " + placeholder(0) + placeholder(0) + placeholder(1), // one twice
		"a: " + placeholder(2) + placeholder(0) + placeholder(1), // out of range
		"a: " + placeholderPrefix + "12",                         // cut short
	} {
		_, ok := restoreManifests([]byte(y), m)
		assert.False(t, ok, y)
	}
}
