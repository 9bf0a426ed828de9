package declcfg

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
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

// TestParseBundleObjectMatchesParseValue checks the one-pass decoder of
// inline objects against encoding/json on every value form.
func TestParseBundleObjectMatchesParseValue(t *testing.T) {
	for _, v := range append(indentCases, `{"data":"QQ=="}`, `{"data":"Q"}`, `{"data":"QQ==","ref":"x"}`, `{"ref":"a/b.yaml"}`, `{"Data":"QQ=="}`, `{"data":"QQ==","data":"QUI="}`, `{"data":null}`) {
		p := Property{Type: PropertyBundleObject, Value: json.RawMessage(v)}
		var want BundleObjectValue
		werr := p.ParseValue(&want)
		got, gerr := parseBundleObject(p)
		if werr != nil {
			assert.Error(t, gerr, v)
			assert.Error(t, checkPropertyValue(p), v)
			continue
		}
		assert.NoError(t, gerr, v)
		assert.Equal(t, want, got, v)
		assert.NoError(t, checkPropertyValue(p), v)
	}
}

func TestPlainKindMatchesDecoding(t *testing.T) {
	for _, js := range []string{`{"kind":"CSV"}`, `{"a":{"kind":"x"},"kind":"K"}`, `{"Kind":"A","kind":"B"}`, `{"kind":"A","KIND":"B"}`, `{"kind":"a\"b"}`, `{"kind":5}`, `{"kind":null}`, `{}`, `[1]`, `{"kind":"ü"}`, ` {"kind" : "S" } `} {
		var head struct {
			Kind string `json:"kind"`
		}
		err := json.Unmarshal([]byte(js), &head)
		kind, ok := plainKind([]byte(js))
		if !ok {
			continue // objectJSON decodes then
		}
		assert.NoError(t, err, js)
		assert.Equal(t, head.Kind, kind, js)
	}
}
