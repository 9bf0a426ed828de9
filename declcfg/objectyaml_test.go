package declcfg

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// objectCorpus returns edge-case objects, the realistic generator's
// objects and every bundle object of the opm golden catalogs.
func objectCorpus(t *testing.T) [][]byte {
	t.Helper()
	objs := [][]byte{}
	for _, s := range []string{
		`{}`, `{"a":1}`, `{"a":-0}`, `{"a":1.5e300}`, `{"a":1e400}`, `{"a":9223372036854775807}`, `{"a":9223372036854775808}`, `{"a":18446744073709551616}`,
		`{"a":0.1}`, `{"a":1.0}`, `{"a":1E+2}`, `{"a":true,"b":false,"c":null}`, `{"a":[1,"2",[],{}]}`, `{"a":"\/"}`, `{"a":"\ud83d\ude00"}`, `{"a":"😀"}`,
		`{"a":"\u0000"}`, `{"a":"\u00e9"}`, "{\"a\":\"\u0085\"}", "{\"a\":\"\u2028\u2029\"}", `{"a":"\u2028"}`, `{"a":"\u0085"}`, "{\"a\":\"\ufeff\"}", "{\"a\":\"\x7f\"}", "{\"a\":\"\xff\"}", `{"a":"yes"}`, `{"a":"1"}`, `{"a":"~"}`,
		`{"a":"- x"}`, `{"a":"x: y"}`, `{"a":"#x"}`, `{"a":"line\nbreak\n"}`, `{"a":"  lead"}`, `{"a":"2001-12-14"}`, `{"a":"0x1F"}`, `{"a":"<<"}`, `{"<<":1}`,
		`{"` + string(bytes.Repeat([]byte("k"), 1100)) + `":1}`, `{"a":"` + string(bytes.Repeat([]byte("word "), 100)) + `"}`, `[1,2]`, `"s"`, `{"a":1}{}`, `not json`,
	} {
		objs = append(objs, []byte(s))
	}
	for _, b := range genRealisticCatalog(t, 1, 2).Bundles {
		for _, p := range b.Properties {
			if v, err := parseBundleObject(p); p.Type == PropertyBundleObject && err == nil {
				objs = append(objs, v.Data)
			}
		}
	}
	for _, blob := range goldenBundleBlobs(t) {
		var bd Bundle
		require.NoError(t, json.Unmarshal([]byte(blob), &bd))
		for _, p := range bd.Properties {
			var v struct {
				Data string `json:"data"`
			}
			if p.Type == PropertyBundleObject && json.Unmarshal(p.Value, &v) == nil {
				if raw, err := base64.StdEncoding.DecodeString(v.Data); err == nil {
					objs = append(objs, raw)
				}
			}
		}
	}
	return objs
}

// TestObjectJSONToYAMLMatches checks the encoding/json route to YAML
// against yaml.JSONToYAML: the same bytes, or an error from both.
func TestObjectJSONToYAMLMatches(t *testing.T) {
	objs := objectCorpus(t)
	if extra := os.Getenv("OLMCAT_OBJECT_CORPUS"); extra != "" {
		// A catalog's objects, one base64 object per line: a one-off check
		// against a real catalog.
		data, err := os.ReadFile(extra)
		require.NoError(t, err)
		for _, line := range bytes.Split(data, []byte("\n")) {
			if raw, err := base64.StdEncoding.DecodeString(string(line)); err == nil && len(raw) > 0 {
				objs = append(objs, raw)
			}
		}
	}
	fast := 0
	for _, o := range objs {
		want, werr := yaml.JSONToYAML(o)
		got, gerr := objectJSONToYAML(o)
		if _, ok := yamlValueOf(o); ok {
			fast++
		}
		if werr != nil {
			assert.Error(t, gerr, "%.80q", o)
			continue
		}
		require.NoError(t, gerr, "%.80q", o)
		require.Equal(t, string(want), string(got), "%.80q", o)
	}
	t.Logf("%d objects, %d through encoding/json", len(objs), fast)
	assert.Greater(t, fast, len(objs)/2)
}

// TestObjectJSONToYAMLKeyColonNextLine: a key whose colon is on the next
// line is no key to the YAML parser ("did not find expected ',' or '}'"),
// so objectJSONToYAML fails as yaml.JSONToYAML does. Before yamljson its
// own check let '\n' through anywhere and it wrote "a: 1" (unreached:
// objectFileContent takes compact JSON only).
func TestObjectJSONToYAMLKeyColonNextLine(t *testing.T) {
	for _, s := range []string{"{\"a\"\n:1}", "{\"x\":{\"a\"\n:\"b\"},\"c\":[1,2]}"} {
		_, werr := yaml.JSONToYAML([]byte(s))
		require.Error(t, werr, "%q", s)
		_, ok := yamlValueOf([]byte(s))
		assert.False(t, ok, "%q", s)
		_, err := objectJSONToYAML([]byte(s))
		assert.Error(t, err, "%q", s)
	}
}

// BenchmarkObjectJSONToYAML: the realistic generator's bundle objects
// through objectJSONToYAML, the YAML writing of the objects layout
// without the files around it (BenchmarkWriteDir10k/Objects is that with
// the files).
func BenchmarkObjectJSONToYAML(b *testing.B) {
	var objs [][]byte
	for _, bd := range genRealisticCatalog(b, 4, 5).Bundles {
		for _, p := range bd.Properties {
			if v, err := parseBundleObject(p); p.Type == PropertyBundleObject && err == nil {
				objs = append(objs, v.Data)
			}
		}
	}
	require.NotEmpty(b, objs)
	b.ReportAllocs()
	for b.Loop() {
		for _, o := range objs {
			_, err := objectJSONToYAML(o)
			require.NoError(b, err)
		}
	}
}
