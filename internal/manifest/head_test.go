package manifest

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var headCases = []string{
	`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"op","labels":{"name":"x"}}}`,
	`{"kind":"A","kind":"B"}`, `{"metadata":{"name":"a"},"metadata":{}}`, `{"metadata":{"name":"a"},"metadata":{"name":"b"}}`,
	`{"Kind":"A"}`, `{"metadata":{"Name":"a"}}`, `{"kind":5}`, `{"kind":null}`, `{"kind":"a\"b"}`, `{"metadata":null}`, `{"metadata":[1]}`,
	`not json`, `{"kind":"A"`, `[]`, `{}`, ` {"apiVersion" : "v1" , "kind" : "Service" } `, `{"\u212aind":"K"}`,
}

// decodeHead is what encoding/json decodes, without the fast path.
func decodeHead(obj []byte) Head {
	var doc headDoc
	_ = json.Unmarshal(obj, &doc)
	return doc.head()
}

func TestReadHeadMatchesDecoding(t *testing.T) {
	for _, o := range headCases {
		assert.Equal(t, decodeHead([]byte(o)), ReadHead([]byte(o)), o)
	}
}

func FuzzReadHead(f *testing.F) {
	for _, c := range headCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, obj []byte) {
		if !json.Valid(obj) {
			return // encoding/json's partial result on bad input is not promised
		}
		require.Equal(t, decodeHead(obj), ReadHead(obj), "ReadHead(%q) reads what encoding/json decodes", obj)
	})
}
