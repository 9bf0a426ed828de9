package declcfg

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidStdBase64(t *testing.T) {
	for _, s := range []string{"", "QQ==", "QUI=", "QUJD", "QUJDRA==", "Q", "QQ", "QQ=", "Q===", "====", "QQ==QQ==", "QU=D", "=QUJ", "QUJDR===", "QUJD\n", "QUJ-"} {
		_, err := base64.StdEncoding.DecodeString(s)
		if inlineBase64([]byte(`{"data":"`+s+`"}`)) == nil {
			continue // not base64 characters only: never reaches validStdBase64
		}
		assert.Equal(t, err == nil, validStdBase64([]byte(s)), "%q", s)
	}
}

// TestIsBase64Text: one byte outside the alphabet anywhere, in a
// 16-byte block or in the tail, fails the text.
func TestIsBase64Text(t *testing.T) {
	good := strings.Repeat("QUJDRA+/", 5) + "QQ==" // 44 bytes: two blocks and a tail
	require.True(t, isBase64Text([]byte(good)))
	for i := range good {
		for _, c := range []byte{'-', '\n', '"', 0, 0x80, 0xff, '@', '[', '`', '{', ':', '*'} {
			bad := []byte(good)
			bad[i] = c
			assert.False(t, isBase64Text(bad), "%q", bad)
		}
	}
}

// TestParseBundleObjectMatchesParseValue checks the one-pass decoder of
// inline objects against encoding/json on every value form.
func TestParseBundleObjectMatchesParseValue(t *testing.T) {
	for _, v := range append(indentCases, `{"data":"QQ=="}`, `{"data":"Q"}`, `{"data":"QQ==","ref":"x"}`, `{"ref":"a/b.yaml"}`, `{"Data":"QQ=="}`, `{"data":"QQ==","data":"QUI="}`, `{"data":null}`,
		`{"data":"Q\u0051=="}`, `{"data":"QQ==QQ=="}`, `{"data":"QQ=="} `, `{"data":"é"}`, `{"data":""}`, `{"data":"QQ=","x":1}`, `{ "data" : "QUI=" }`) {
		p := Property{Type: PropertyBundleObject, Value: json.RawMessage(v)}
		var want BundleObjectValue
		werr := p.ParseValue(&want)
		got, gerr := parseBundleObject(p)
		if werr != nil {
			assert.Error(t, gerr, v)
			assert.Error(t, p.Validate(), v)
			continue
		}
		assert.NoError(t, gerr, v)
		assert.Equal(t, want, got, v)
		assert.NoError(t, p.Validate(), v)
	}
}

// TestDecodePlainBundleMatchesUnmarshal checks the hand-written bundle
// decoder against encoding/json on edge cases and every bundle blob of
// the opm golden catalogs: whenever it accepts a blob, the Bundle is the
// one encoding/json decodes.
func TestDecodePlainBundleMatchesUnmarshal(t *testing.T) {
	blobs := []string{
		`{"schema":"olm.bundle","name":"a","package":"p","image":"i","properties":[{"type":"t","value":{"a":1}}],"relatedImages":[{"name":"x","image":"y"}]}`,
		`{"schema":"olm.bundle","properties":[],"relatedImages":[]}`,
		`{ "schema" : "olm.bundle" , "properties" : [ { "type" : "t" , "value" : [ 1 , 2 ] } , {"value":"s","type":"u"} ] }`,
		`{"schema":"olm.bundle","properties":[{"type":"t","value":null}]}`,
		`{"schema":"olm.bundle","properties":[{"type":"t"}]}`,
		`{"schema":"olm.bundle","properties":[{"type":"t","value":1,"x":2}]}`,
		`{"schema":"olm.bundle","properties":null}`,
		`{"schema":"olm.bundle","Name":"a"}`,
		`{"schema":"olm.bundle","name":"a","name":"b"}`,
		`{"schema":"olm.bundle","name":"a\"b"}`,
		`{"schema":"olm.bundle","na\u006de":"x"}`,
		`{"schema":"olm.bundle","name":null}`,
		`{"schema":"olm.bundle","extra":{"a":1}}`,
		`{"schema":"olm.bundle","relatedImages":null}`,
		`{"schema":"olm.bundle","properties":[{"type":"t","value":true},{"type":"olm.bundle.object","value":{"data":"eyJ9"}}]}`,
	}
	blobs = append(blobs, goldenBundleBlobs(t)...)
	accepted := 0
	for _, blob := range blobs {
		got, ok := decodePlainBundle([]byte(blob))
		if !ok {
			continue
		}
		accepted++
		var want Bundle
		require.NoError(t, json.Unmarshal([]byte(blob), &want), "%.80s", blob)
		assert.Equal(t, want, got, "%.80s", blob)
	}
	assert.Greater(t, accepted, 20)
}

// goldenBundleBlobs returns every olm.bundle blob of the opm golden
// catalogs, as read.
func goldenBundleBlobs(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, dir := range opmOutputDirs(t) {
		require.NoError(t, filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
				return err
			}
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			return DecodeStream(bytes.NewReader(data), func(blob json.RawMessage, _ int) error {
				if bytes.Contains(blob, []byte(`"olm.bundle"`)) {
					out = append(out, string(blob))
				}
				return nil
			})
		}))
	}
	return out
}

// decodeJSONAll returns every blob a JSON-stream decoder hands out and its
// error text.
func decodeJSONAll(dec func(*bufio.Reader, func(json.RawMessage, int) error) error, data []byte) ([]string, string) {
	var blobs []string
	err := dec(bufio.NewReaderSize(bytes.NewReader(data), 16), func(blob json.RawMessage, i int) error {
		blobs = append(blobs, fmt.Sprintf("%d:%s", i, blob))
		return nil
	})
	if err != nil {
		return blobs, err.Error()
	}
	return blobs, ""
}

// TestDecodeJSONObjectsMatchesDecoder checks the object framer against
// json.Decoder: same blobs, same error, on good and broken streams and on
// every cut of the test streams.
func TestDecodeJSONObjectsMatchesDecoder(t *testing.T) {
	old := func(br *bufio.Reader, fn func(json.RawMessage, int) error) error { return decodeJSONStream(br, fn) }
	streams := []string{
		`{}`, `{"a":1}{"b":[1,{"c":"}"}]}`, "{\"a\":\"x\\\"}\"}\n\n{\"b\":2}\n", `{"a":1} [1]`, `{"a":1} 5`, `{"a":1}}`, `{"a":]`, `{"a":"unterminated`,
		`{"a":{"b":1}`, `{"a":1}{`, `{"a":1} x`, "{\"a\":1}\n   \n", `{"a":"\\"}{"b":"\\\""}`, `{"a":[}]}`, `{"a":1,}`, strings.Repeat(`{"k":"`+strings.Repeat("QUJD", 30000)+`"}`, 3),
	}
	files, err := filepath.Glob(filepath.Join("testdata", "streams", "*"))
	require.NoError(t, err)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		if s := bytes.TrimSpace(data); len(s) > 0 && s[0] == '{' {
			streams = append(streams, string(s))
			for n := 0; n < len(s); n += 1 + len(s)/50 {
				streams = append(streams, string(s[:n]))
			}
		}
	}
	for _, s := range streams {
		if t := bytes.TrimLeft([]byte(s), " \n"); len(t) == 0 || t[0] != '{' {
			continue // DecodeStream sends only streams starting with '{' here
		}
		wantBlobs, wantErr := decodeJSONAll(old, []byte(s))
		gotBlobs, gotErr := decodeJSONAll(func(br *bufio.Reader, fn func(json.RawMessage, int) error) error {
			return decodeJSONObjects(br, true, fn)
		}, []byte(s))
		assert.Equal(t, wantBlobs, gotBlobs, "%.80q", s)
		assert.Equal(t, wantErr, gotErr, "%.80q", s)
	}
}

// FuzzDecodePlainBundle checks the hand-written bundle decoder against
// encoding/json on arbitrary valid JSON objects: whenever it accepts one,
// the Bundle must be the one encoding/json decodes.
func FuzzDecodePlainBundle(f *testing.F) {
	for _, seed := range []string{
		`{"schema":"olm.bundle","name":"a","package":"p","image":"i","properties":[{"type":"t","value":{"a":1}}],"relatedImages":[{"name":"x","image":"y"}]}`,
		`{"schema":"olm.bundle","properties":[{"type":"t","value":"s"}]}`,
		`{"schema":"olm.bundle","relatedImages":[]}`,
		`{"schema":"olm.bundle","relatedImages":[{"image":"y"},{}]}`,
		`{"schema":"olm.bundle","relatedImages":[{"Name":"x","name":"y"}]}`,
		`{"schema":"olm.bundle","relatedImages":[{"name":"x","name":"y"}]}`,
		`{"schema":"olm.bundle","relatedImages":[null,{"name":null}]}`,
		`{"schema":"olm.bundle","relatedImages":[{"name":"\u0078","image":"y","extra":1}]}`,
		`{"schema":"olm.bundle","name":"a\u0062"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, blob []byte) {
		var top map[string]json.RawMessage
		if json.Unmarshal(blob, &top) != nil {
			return // the loader only hands decodePlainBundle valid objects
		}
		got, ok := decodePlainBundle(blob)
		if !ok {
			return
		}
		var want Bundle
		require.NoError(t, json.Unmarshal(blob, &want), "decodePlainBundle accepted %q, encoding/json refuses it", blob)
		assert.Equal(t, want, got, "%q", blob)
	})
}

// FuzzParseBundleObject checks the inline-object fast path against
// encoding/json on arbitrary valid JSON values: same data, or both fail.
func FuzzParseBundleObject(f *testing.F) {
	for _, seed := range []string{`{"data":"QQ=="}`, `{"data":"Q\u0051=="}`, `{"data":"QQ==QQ=="}`, `{"data":""}`, `{ "data" : "e30=" }`, `{"data":"é"}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		if !json.Valid(v) {
			return // values reach the decoder from valid blobs only
		}
		p := Property{Type: PropertyBundleObject, Value: v}
		var want BundleObjectValue
		werr := p.ParseValue(&want)
		got, gerr := parseBundleObjectInto(p, new([]byte))
		require.Equal(t, werr == nil, gerr == nil, "%q: encoding/json error %v, fast path error %v", v, werr, gerr)
		if werr == nil {
			require.Equal(t, string(want.Data), string(got.Data), "%q: data", v)
			require.Equal(t, want.Ref, got.Ref, "%q: ref", v)
		}
	})
}
