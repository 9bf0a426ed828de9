package yamljson

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"
)

// seeds are the seed corpora of the fuzz tests this package's check came
// from (bundle's plainJSONCases, declcfg's objectCorpus edge cases) and
// what tells the two number rules and the key rule apart.
var seeds = []string{
	// bundle's plainJSONCases
	`{"kind":"A","a":[1,-2,true,false,null,{"b":"<\u00e9\n\"\\>"}],"c":{}}`,
	" {\n  \"kind\": \"A\",\r\n  \"n\": 123456789012345678 \n}\n",
	`{"kind":"A","a":1.0}`, `{"kind":"A","a":1e3}`, `{"kind":"A","a":-0}`, `{"kind":"A","a":12345678901234567890}`,
	`{"kind":"A","a":"\/"}`, `{"kind":"A","a":"\ud83d\ude00"}`, "{\"kind\":\"A\",\t\"a\":1}", "{\"kind\":\"A\"}\t",
	"{\"kind\":\"A\",\"a\"\n:1}", `{"kind":"A","` + strings.Repeat("k", 1030) + `":1}`, `{"kind":"é’😀"}`, "{\"kind\":\"A\u2028\"}", "{\"kind\":\"A\u0085\"}", "{\"kind\":\"A\u0080\ufeff\"}",
	"{\"kind\":\"A\xff\"}", "{\"kind\":\"A\xef\xbf\xbe\"}", "{\"kind\":\"A\x7f\"}",
	`{"kind":"A","a":1,"a":{"b":2}}`, `{"kind":5}`, `{"kind":"A"} {}`, `[{"kind":"A"}]`, `{"kind":"A"`, `{"kind":"A","a":01}`,
	// declcfg's objectCorpus edge cases
	`{}`, `{"a":1}`, `{"a":-0}`, `{"a":1.5e300}`, `{"a":1e400}`, `{"a":9223372036854775807}`, `{"a":9223372036854775808}`, `{"a":18446744073709551616}`,
	`{"a":0.1}`, `{"a":1.0}`, `{"a":1E+2}`, `{"a":true,"b":false,"c":null}`, `{"a":[1,"2",[],{}]}`, `{"a":"\/"}`, `{"a":"\ud83d\ude00"}`, `{"a":"😀"}`,
	`{"a":"\u0000"}`, `{"a":"\u00e9"}`, "{\"a\":\"\u0085\"}", "{\"a\":\"\u2028\u2029\"}", `{"a":"\u2028"}`, `{"a":"\u0085"}`, "{\"a\":\"\ufeff\"}", "{\"a\":\"\x7f\"}", "{\"a\":\"\xff\"}", `{"a":"yes"}`, `{"a":"1"}`, `{"a":"~"}`,
	`{"a":"- x"}`, `{"a":"x: y"}`, `{"a":"#x"}`, `{"a":"line\nbreak\n"}`, `{"a":"  lead"}`, `{"a":"2001-12-14"}`, `{"a":"0x1F"}`, `{"a":"<<"}`, `{"<<":1}`,
	`{"` + strings.Repeat("k", 1100) + `":1}`, `{"a":"` + strings.Repeat("word ", 100) + `"}`, `[1,2]`, `"s"`, `{"a":1}{}`, `not json`,
	// the key rule: a colon on the next line, or too far on
	"{\"a\"\n:1}", "{\"x\":{\"a\"\r\n:1}}", "{\"a\" :\n1}", `{"` + strings.Repeat("k", 997) + `":1}`, `{"` + strings.Repeat("k", 998) + `":1}`,
	`{"` + strings.Repeat("k", 990) + `"         :1}`, `{"` + strings.Repeat("é", 499) + `":1}`,
	// depth
	strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth),
	strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1),
}

// TestReadsAsJSON: what each rule takes and refuses.
func TestReadsAsJSON(t *testing.T) {
	for _, c := range []struct {
		in        string
		any, ints bool
	}{
		{`{"kind":"A","a":[1,-2,true,false,null,{"b":"<\u00e9\n\"\\>"}],"c":{}}`, true, true},
		{" {\n  \"kind\": \"A\",\r\n  \"n\": 123456789012345678 \n}\n", true, true},
		{`{"a":1.0}`, true, false},
		{`{"a":1e3}`, true, false},
		{`{"a":1E+2}`, true, false},
		{`{"a":-0}`, true, false},
		{`{"a":1234567890123456789}`, true, false},
		{`{"a":"\/"}`, false, false},
		{`{"a":"\ud83d\ude00"}`, false, false},
		{`{"a":"\u00e9"}`, true, true},
		{"{\"a\":\t1}", false, false},
		{"{\"a\"\n:1}", false, false},
		{"{\"a\"\r:1}", false, false},
		{"{\"a\":\n1}", true, true},
		{`{"` + strings.Repeat("k", 998) + `":1}`, true, true},
		{`{"` + strings.Repeat("k", 999) + `":1}`, false, false},
		{"{\"a\":\"\u2028\"}", false, false},
		{"{\"a\":\"\xff\"}", false, false},
		{`[1]`, false, false},
		{`{"a":1} {}`, false, false},
		{strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth), true, true},
		{strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1), false, false},
	} {
		assert.Equal(t, c.any, ReadsAsJSON([]byte(c.in), AnyNumbers), "AnyNumbers %.60q", c.in)
		assert.Equal(t, c.ints, ReadsAsJSON([]byte(c.in), Integers), "Integers %.60q", c.in)
	}
}

// TestReadsAsJSONAgainstYAML holds the seeds and every fixture manifest,
// as compact and as indented JSON, to checkAgainstYAML; most manifests
// must pass the check.
func TestReadsAsJSONAgainstYAML(t *testing.T) {
	for _, s := range seeds {
		checkAgainstYAML(t, []byte(s))
	}
	taken := 0
	for _, f := range manifestJSON(t) {
		if checkAgainstYAML(t, f) {
			taken++
		}
	}
	t.Logf("%d of the fixture manifests' JSON taken", taken)
	assert.Greater(t, taken, 100)
}

// manifestJSON returns every fixture bundle manifest as compact and as
// indented JSON.
func manifestJSON(tb testing.TB) [][]byte {
	tb.Helper()
	var out [][]byte
	dirs, err := os.ReadDir("../../fixtures/bundles/opm-bundles")
	require.NoError(tb, err)
	for _, d := range dirs {
		dir := "../../fixtures/bundles/opm-bundles/" + d.Name() + "/manifests/"
		files, _ := os.ReadDir(dir)
		for _, f := range files {
			data, err := os.ReadFile(dir + f.Name())
			if err != nil {
				continue
			}
			js, err := yaml.YAMLToJSON(data)
			if err != nil {
				continue
			}
			var indented bytes.Buffer
			if json.Indent(&indented, js, "", "  ") == nil {
				out = append(out, js, indented.Bytes())
			}
		}
	}
	return out
}

func FuzzReadsAsJSON(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	for _, m := range manifestJSON(f)[:8] {
		f.Add(m)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAgainstYAML(t, data)
	})
}

// checkAgainstYAML holds ReadsAsJSON to the YAML parser of
// sigs.k8s.io/yaml: when a rule takes data and data is one JSON value,
// YAML reads it as JSON does. Integers: YAMLToJSON gives the same
// document, number texts included. AnyNumbers: yaml.v2 (which
// JSONToYAML parses with) gives JSON's document with each number typed
// as YAML types its text alone, and JSONToYAML writes what encoding that
// value writes. Integers takes nothing AnyNumbers refuses. It reports
// whether AnyNumbers took data.
func checkAgainstYAML(t *testing.T, data []byte) bool {
	t.Helper()
	anyOK, intsOK := ReadsAsJSON(data, AnyNumbers), ReadsAsJSON(data, Integers)
	require.False(t, intsOK && !anyOK, "Integers takes what AnyNumbers refuses: %q", data)
	if !anyOK || !json.Valid(data) {
		return false
	}
	var fromJSON any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&fromJSON))
	if intsOK {
		js, err := yaml.YAMLToJSON(data)
		require.NoError(t, err, "Integers %q", data)
		var fromYAML any
		dec := json.NewDecoder(bytes.NewReader(js))
		dec.UseNumber()
		require.NoError(t, dec.Decode(&fromYAML), "%q", data)
		require.Equal(t, fromJSON, fromYAML, "Integers %q", data)
	}
	want, err := yaml.JSONToYAML(data)
	require.NoError(t, err, "AnyNumbers %q", data)
	var fromYAML any
	require.NoError(t, yamlv2.Unmarshal(data, &fromYAML), "%q", data)
	typed := yamlTyped(t, fromJSON)
	require.True(t, reflect.DeepEqual(typed, fromYAML), "AnyNumbers %q:\n%#v\n%#v", data, typed, fromYAML)
	got, err := yamlv2.Marshal(typed)
	require.NoError(t, err, "%q", data)
	require.Equal(t, string(want), string(got), "AnyNumbers %q", data)
	return true
}

// yamlTyped is v as yaml.v2 types it: maps of interface{} keys, each
// number what YAML's resolver makes of its text alone.
func yamlTyped(t *testing.T, v any) any {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		m := make(map[any]any, len(v))
		for k, e := range v {
			m[k] = yamlTyped(t, e)
		}
		return m
	case []any:
		for i, e := range v {
			v[i] = yamlTyped(t, e)
		}
		return v
	case json.Number:
		var n any
		require.NoError(t, yamlv2.Unmarshal([]byte(v), &n), "%s", v)
		return n
	}
	return v
}
