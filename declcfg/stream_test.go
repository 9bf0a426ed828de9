package declcfg

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func decodeAll(t testing.TB, in string) ([]string, error) {
	t.Helper()
	var blobs []string
	err := DecodeStream(strings.NewReader(in), func(blob json.RawMessage, index int) error {
		require.Len(t, blobs, index, "blob index")
		blobs = append(blobs, string(blob))
		return nil
	})
	return blobs, err
}

func TestDecodeStream(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string
		wantErr string
	}{
		{"empty", "", nil, ""},
		{"only whitespace", " \n\t\r\n", nil, ""},
		{"json stream", `{"a":1} {"b":[1,2]}` + "\n" + `{"c":"\u003c"}`, []string{`{"a":1}`, `{"b":[1,2]}`, `{"c":"\u003c"}`}, ""},
		{"json keeps bytes", "{\n  \"x\": 1.50\n}", []string{"{\n  \"x\": 1.50\n}"}, ""},
		{"json not an object", `{"a":1} "s"`, []string{`{"a":1}`}, `blob #1: not a JSON object: "s"`},
		{"json truncated", `{"a":1} {"b":`, []string{`{"a":1}`}, "blob #1: decode JSON: unexpected EOF"},
		{"yaml docs", "---\na: 1\n---\n# nothing\n---\nb: <x>\n", []string{`{"a":1}`, `{"b":"<x>"}`}, ""},
		{"yaml without separator", "schema: x\nname: z\n", []string{`{"name":"z","schema":"x"}`}, ""},
		// YAML 1.1 (as in opm) reads an unquoted y/n/yes/no/on/off as a boolean.
		{"yaml 1.1 booleans", "name: y\nquoted: 'y'\n", []string{`{"name":true,"quoted":"y"}`}, ""},
		{"yaml list", "a: 1\n---\n- x\n", []string{`{"a":1}`}, `YAML document #1: not an object: ["x"]`},
		{"yaml scalar", "just text", nil, `YAML document #0: not an object: "just text"`},
		{"yaml syntax", "a: [1,\n", nil, "YAML document #0: yaml: line 1: did not find expected node content"},
		{"bad separator", "a: 1\n--- x\n", nil, "YAML document #0: invalid Yaml document separator: x"},
		{"byte order mark", "\ufeff{\"a\":1}", []string{`{"a":1}`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeAll(t, tt.in)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDecodeStreamCallbackErrorStops(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := DecodeStream(strings.NewReader(`{"a":1}{"a":2}{"a":3}`), func(json.RawMessage, int) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	require.Same(t, stop, err)
	require.Equal(t, 2, n)
}

// FuzzDecodeStream feeds arbitrary bytes to the blob-stream decoder: it
// must never panic, and every blob it hands out must be a JSON object.
func FuzzDecodeStream(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join("testdata", "streams", "*"))
	require.NoError(f, err)
	for _, p := range seeds {
		data, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte(""))
	f.Add([]byte("---\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		last := -1
		_ = DecodeStream(bytes.NewReader(data), func(blob json.RawMessage, index int) error {
			require.Equal(t, last+1, index, "index after %d", last)
			last = index
			require.True(t, len(blob) > 0 && blob[0] == '{' && json.Valid(blob), "blob #%d is not a JSON object: %q", index, blob)
			// The loader's top-level key scanner must agree with a full decode.
			meta, err := metaKeys(blob)
			var top map[string]any
			require.NoError(t, json.Unmarshal(blob, &top), "blob #%d does not decode", index)
			var folded []any
			for k, v := range top {
				if strings.EqualFold(k, "schema") {
					folded = append(folded, v)
				}
			}
			if err == nil {
				require.Equal(t, []any{meta.Schema}, folded, "blob #%d: scanner schema, decoded", index)
			}
			return nil
		})
	})
}

func TestMetaKeys(t *testing.T) {
	tests := []struct {
		in      string
		want    Meta
		wantErr string
	}{
		{`{"schema":"a","package":"p","name":"n"}`, Meta{Schema: "a", Package: "p", Name: "n"}, ""},
		{` { "Schema" : "a" , "NAME":"n", "nested":{"name":"x","schema":"y"}, "list":[{"package":"z"}], "n":-1.5e3, "t":true, "s":"} \" ]" } `, Meta{Schema: "a", Name: "n"}, ""},
		{`{"sch\u0065ma":"esc\u0061ped"}`, Meta{Schema: "escaped"}, ""},
		{`{}`, Meta{}, "missing root schema field"},
		{`{"schema":""}`, Meta{}, "missing root schema field"},
		{`{"schema":"a","SCHEMA":"b"}`, Meta{}, `duplicate keys "SCHEMA" and "schema"`},
		{`{"schema":["a"]}`, Meta{}, `key "schema": must be a string`},
		{`{"package":null,"schema":"a"}`, Meta{Schema: "a"}, ""},
		{`{"schema":"a"`, Meta{}, "decode blob: malformed JSON object"},
		{`["schema"]`, Meta{}, "decode blob: malformed JSON object"},
	}
	for _, tt := range tests {
		got, err := metaKeys([]byte(tt.in))
		if tt.wantErr != "" {
			assert.EqualError(t, err, tt.wantErr, tt.in)
			continue
		}
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
}
