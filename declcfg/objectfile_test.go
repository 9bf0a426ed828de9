package declcfg

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// objectFileContentFull is objectFileContent without the canonicalJSON
// shortcut: always try the YAML round trip first.
func objectFileContentFull(obj []byte) ([]byte, bool) {
	if y, err := safeJSONToYAML(obj); err == nil {
		if back, err := objectFromFile(y); err == nil && bytes.Equal(back, obj) {
			return y, true
		}
	}
	content := append(append([]byte(nil), obj...), '\n')
	if back, err := objectFromFile(content); err == nil && bytes.Equal(back, obj) {
		return content, true
	}
	return nil, false
}

// TestObjectFileContentShortcut checks that skipping the YAML round trip
// for non-canonical objects never changes what is written: on edge cases,
// the realistic generator's objects and every object of the opm golden
// catalogs.
func TestObjectFileContentShortcut(t *testing.T) {
	objs := []string{
		`{}`, `{"a":1}`, `{"b":1,"a":2}`, `{"a":1,"a":2}`, `{ "a":1}`, `{"a":"x y"}`, `{"a":"<b>"}`, `{"a":"&"}`,
		`{"a":{"d":1,"c":2}}`, `{"a":[{"z":1,"y":2}]}`, `{"a\u0062":1,"a":2}`, `{"\u0061":1,"b":2}`, `{"a":1.0}`, `{"a":1e3}`,
		`{"a":"\u00e9"}`, `{"a":"é"}`, `{"a":"\/"}`, `{"a":"line\nbreak"}`, `{"a":null,"b":true,"c":[]}`, `{"":1,"a":2}`,
		`{"a":"x:y"}`, `{"a":"yes"}`, `{"a":"1"}`, `{"a":"- x"}`, `not json`, `{"a":`, `[1,2]`, "{\"a\":\"\u2028\"}",
	}
	for _, b := range genRealisticCatalog(t, 1, 2).Bundles {
		for _, p := range b.Properties {
			var v BundleObjectValue
			if p.Type == PropertyBundleObject && p.ParseValue(&v) == nil {
				objs = append(objs, string(v.Data))
			}
		}
	}
	for _, dir := range opmOutputDirs(t) {
		_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
				return err
			}
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, DecodeStream(bytes.NewReader(data), func(blob json.RawMessage, _ int) error {
				var bd Bundle
				if json.Unmarshal(blob, &bd) != nil {
					return nil
				}
				for _, p := range bd.Properties {
					var v struct {
						Data string `json:"data"`
					}
					if p.Type == PropertyBundleObject && json.Unmarshal(p.Value, &v) == nil {
						if raw, err := base64.StdEncoding.DecodeString(v.Data); err == nil {
							objs = append(objs, string(raw))
						}
					}
				}
				return nil
			}))
			return nil
		})
	}
	if extra := os.Getenv("OLMCAT_OBJECT_CORPUS"); extra != "" {
		// A catalog's objects, one base64 object per line: a one-off check
		// against a real catalog.
		data, err := os.ReadFile(extra)
		require.NoError(t, err)
		for _, line := range bytes.Split(data, []byte("\n")) {
			if raw, err := base64.StdEncoding.DecodeString(string(line)); err == nil && len(raw) > 0 {
				objs = append(objs, string(raw))
			}
		}
	}
	long := strings.Repeat("iVBORw0KGgo", 20)
	objs = append(objs, `{"icon":[{"base64data":"`+long+`","mediatype":"image/png"}],"x":"`+long+`"}`,
		`{"a":"`+long+`","b":{"c":["`+long+`=","1`+long+`"]}}`, `{"a":"`+long+` "}`, `{"a":"`+placeholderPrefix+long+`"}`,
		`{"a":"`+long+`","b":"`+placeholder(0)+`"}`)
	require.Greater(t, len(objs), 40)
	for _, o := range objs {
		want, wantOK := objectFileContentFull([]byte(o))
		got, gotOK := objectFileContent([]byte(o))
		assert.Equal(t, wantOK, gotOK, "%.80q", o)
		assert.Equal(t, string(want), string(got), "%.80q", o)
	}
}

func TestObjectFileBaseMatchesDecoding(t *testing.T) {
	objs := []string{
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"op","labels":{"name":"x"}}}`,
		`{"kind":"A","kind":"B"}`, `{"metadata":{"name":"a"},"metadata":{}}`, `{"metadata":{"name":"a"},"metadata":{"name":"b"}}`,
		`{"Kind":"A"}`, `{"metadata":{"Name":"a"}}`, `{"kind":5}`, `{"kind":null}`, `{"kind":"a\"b"}`, `{"metadata":null}`, `{"metadata":[1]}`,
		`not json`, `{"kind":"A"`, `[]`, `{}`, ` {"apiVersion" : "v1" , "kind" : "Service" } `,
	}
	for _, o := range objs {
		assert.Equal(t, objectFileBaseFull([]byte(o)), objectFileBase([]byte(o)), o)
	}
}

// objectFileBaseFull is objectFileBase decoding the object whole.
func objectFileBaseFull(obj []byte) string {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(obj, &head)
	group, version := "", head.APIVersion
	if i := strings.LastIndex(head.APIVersion, "/"); i >= 0 {
		group, version = head.APIVersion[:i], head.APIVersion[i+1:]
	}
	return safePathElement(strings.Join([]string{head.Metadata.Name, group, version, strings.ToLower(head.Kind)}, "_"))
}
