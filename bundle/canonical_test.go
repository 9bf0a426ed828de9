package bundle

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// canonicalCases are manifests whose canonical form is easy to get
// wrong: floats and large numbers as YAML resolves them, HTML and
// control characters, line separators, !!binary bytes that are not
// UTF-8 (json.Marshal writes them as \ufffd), a valid U+FFFD, duplicate
// keys, and what is not an object with a string kind.
var canonicalCases = []string{
	`{"kind":"A","a":1.0,"b":1e3,"c":-0,"d":18446744073709551616,"e":0.1}`,
	"kind: A\na: 1.50\nb: 0x1F\nc: 1_000\nd: 1e400\n", "kind: A\nd: .inf\n",
	"kind: A\nb: !!binary gIA=\n",
	"kind: A\nb: !!binary 77+9\n",
	"kind: A\nb: \"\\ufffd and \\\\ufffd\"\n",
	"kind: A\ns: \"<a> & \\u2028 \\x01 \\x7f \\t\"\n",
	`{"kind":"A","x":{"k":1,"k":2}}`,
	"kind: A\n1: one\ntrue: yes\n",
	`{"kind":5}`, `{"Kind":"A"}`, `{}`, `null`, `[{"kind":"A"}]`, `"kind"`, "kind: [",
}

// TestCanonicalObjectAsReencoded: canonicalObject gives what decoding
// YAMLToJSON's output and encoding it again gives (what it did before
// it kept that output as it is), and fails where that fails, on every
// fixture bundle's manifests and on canonicalCases.
func TestCanonicalObjectAsReencoded(t *testing.T) {
	files, err := filepath.Glob("../fixtures/bundles/*/*/manifests/*")
	require.NoError(t, err)
	more, err := filepath.Glob("../fixtures/bundles/*/*/*/manifests/*")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range append(files, more...) {
		data, err := os.ReadFile(f)
		if err != nil {
			continue // a directory
		}
		checkCanonical(t, data)
	}
	for _, c := range canonicalCases {
		checkCanonical(t, []byte(c))
	}
}

// plainJSONCases are JSON manifests for plainJSONObject: plain ones and
// ones YAML reads otherwise (floats, -0, big integers, \/, surrogates,
// tabs, a key whose colon is on the next line or more than 1,024
// characters on, UTF-8 YAML keeps and what it refuses or folds).
var plainJSONCases = []string{
	`{"kind":"A","a":[1,-2,true,false,null,{"b":"<\u00e9\n\"\\>"}],"c":{}}`,
	" {\n  \"kind\": \"A\",\r\n  \"n\": 123456789012345678 \n}\n",
	`{"kind":"A","a":1.0}`, `{"kind":"A","a":1e3}`, `{"kind":"A","a":-0}`, `{"kind":"A","a":12345678901234567890}`,
	`{"kind":"A","a":"\/"}`, `{"kind":"A","a":"\ud83d\ude00"}`, "{\"kind\":\"A\",\t\"a\":1}", "{\"kind\":\"A\"}\t",
	"{\"kind\":\"A\",\"a\"\n:1}", `{"kind":"A","` + strings.Repeat("k", 1030) + `":1}`, `{"kind":"é’😀"}`, "{\"kind\":\"A\u2028\"}", "{\"kind\":\"A\u0085\"}", "{\"kind\":\"A\u0080\ufeff\"}",
	"{\"kind\":\"A\xff\"}", "{\"kind\":\"A\xef\xbf\xbe\"}", "{\"kind\":\"A\x7f\"}",
	`{"kind":"A","a":1,"a":{"b":2}}`, `{"kind":5}`, `{"kind":"A"} {}`, `[{"kind":"A"}]`, `{"kind":"A"`, `{"kind":"A","a":01}`,
}

// TestPlainJSONObjectAsYAML: a manifest that plainJSONObject decodes as
// JSON gets what YAMLToJSON gave it, on every fixture manifest as
// compact and as indented JSON and on plainJSONCases; the plain JSON
// manifests do take the JSON path.
func TestPlainJSONObjectAsYAML(t *testing.T) {
	files, err := filepath.Glob("../fixtures/bundles/*/*/manifests/*")
	require.NoError(t, err)
	plain := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue // a directory
		}
		js, err := yaml.YAMLToJSON(data)
		if err != nil {
			continue
		}
		var indented bytes.Buffer
		require.NoError(t, json.Indent(&indented, js, "", "  "))
		for _, in := range [][]byte{js, indented.Bytes()} {
			if checkPlainJSON(t, in) {
				plain++
			}
		}
	}
	assert.Greater(t, plain, 100, "manifests that took the JSON path")
	for _, c := range plainJSONCases {
		checkPlainJSON(t, []byte(c))
	}
	for i, want := range []bool{true, true, false} {
		_, ok := plainJSONObject([]byte(plainJSONCases[i]))
		assert.Equal(t, want, ok, plainJSONCases[i])
	}
}

func FuzzPlainJSONObject(f *testing.F) {
	for _, c := range plainJSONCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkPlainJSON(t, data)
	})
}

// checkPlainJSON: when plainJSONObject takes data, it gives what the
// YAML path gives; it reports whether it took it.
func checkPlainJSON(t *testing.T, data []byte) bool {
	t.Helper()
	got, ok := plainJSONObject(data)
	if !ok {
		return false
	}
	js, err := yaml.YAMLToJSON(data)
	require.NoError(t, err, "%q", data)
	want, err := marshaledObject(js)
	require.NoError(t, err, "%q", data)
	assert.Equal(t, string(want), string(got), "%q", data)
	return true
}

func FuzzCanonicalObject(f *testing.F) {
	for _, c := range canonicalCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkCanonical(t, data)
	})
}

// checkCanonical: what canonicalObject keeps of YAMLToJSON's output is
// what decoding it and encoding it again gives (YAMLToJSON itself is
// not deterministic: keys that differ in YAML and not as JSON strings,
// 0 and "0", collide in a random order).
func checkCanonical(t *testing.T, data []byte) {
	t.Helper()
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return
	}
	got, err := marshaledObject(js)
	want, werr := reencodeObject(js)
	if werr != nil {
		require.Error(t, err, "%q", data)
		assert.Equal(t, werr.Error(), err.Error(), "%q", data)
		return
	}
	require.NoError(t, err, "%q", data)
	assert.Equal(t, string(want), string(got), "%q", data)
}

// BenchmarkCanonicalObject: a CSV written as JSON (the etcd fixture's),
// through plainJSONObject (json) and through YAMLToJSON (yaml), the
// path every manifest took before.
func BenchmarkCanonicalObject(b *testing.B) {
	data, err := os.ReadFile("../fixtures/bundles/opm-bundles/etcd.0.9.2/manifests/etcdoperator.v0.9.2.clusterserviceversion.yaml")
	require.NoError(b, err)
	js, err := yaml.YAMLToJSON(data)
	require.NoError(b, err)
	b.Run("json", func(b *testing.B) {
		for b.Loop() {
			_, err := canonicalObject(js)
			require.NoError(b, err)
		}
	})
	b.Run("yaml", func(b *testing.B) {
		for b.Loop() {
			out, err := yaml.YAMLToJSON(js)
			require.NoError(b, err)
			_, err = marshaledObject(out)
			require.NoError(b, err)
		}
	})
}
