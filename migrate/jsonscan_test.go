package migrate

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSkipValue(t *testing.T) {
	tests := []string{
		`""`, `"a\"b"`, `"a\\"`, `"\\\\"`, `"x\\\"y"`, `{}`, `[]`, `{"a":[1,{"b":"}"}],"c":"]"}`,
		`123`, `-1.5e3`, `true`, `null`, `[ "a" , { } ]`,
	}
	for _, s := range tests {
		b := []byte(s + `,rest`)
		end, err := skipValue(b, 0)
		require.NoError(t, err, s)
		assert.Equal(t, len(s), end, s)
	}
	_, err := skipValue([]byte(`"unterminated`), 0)
	assert.Error(t, err)
	_, err = skipValue([]byte(`{"a":1`), 0)
	assert.Error(t, err)
}

func TestScanCSVImagesMatchesDecoding(t *testing.T) {
	got, err := scanCSVImages([]byte(fooCSV))
	require.NoError(t, err)
	assert.Equal(t, []declcfgRelatedImage{{Name: "op", Image: "test.registry/foo:v0.3.1"}}, got.related)
	assert.Equal(t, map[string]string{"test.registry/foo:v0.3.1": "operator", "test.registry/side:v1": "sidecar"}, got.containers)

	kind, err := fastKind([]byte(fooCRD))
	require.NoError(t, err)
	assert.Equal(t, "CustomResourceDefinition", kind)

	// A CSV without spec, or with odd shapes, yields nothing rather than failing.
	got, err = scanCSVImages([]byte(`{"kind":"ClusterServiceVersion","spec":{"install":{"spec":{"deployments":null}}}}`))
	require.NoError(t, err)
	assert.Empty(t, got.related)
	assert.Empty(t, got.containers)
	_, err = scanCSVImages([]byte(`{"spec":{"relatedImages":"nope"}}`))
	assert.Error(t, err)
	var v any
	require.NoError(t, json.Unmarshal([]byte(fooCSV), &v), "fixture is valid JSON")
}
