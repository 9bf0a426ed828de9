package migrate

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/legacy"
)

// scanCSVImages reads a CSV's images as checkBundle does.
func scanCSVImages(csv []byte) (*csvImages, error) {
	c := &converter{o: &options{}}
	st := &bundleState{row: &legacy.Bundle{}, csvJSON: csv}
	err := c.readCSV(st)
	return st.images, err
}

func TestScanCSVImagesMatchesDecoding(t *testing.T) {
	got, err := scanCSVImages([]byte(fooCSV))
	require.NoError(t, err)
	assert.Equal(t, []manifest.RelatedImage{{Name: "op", Image: "test.registry/foo:v0.3.1"}}, got.related)
	assert.Equal(t, map[string]string{"test.registry/foo:v0.3.1": "operator", "test.registry/side:v1": "sidecar"}, got.containers)

	kind, err := manifest.Kind([]byte(fooCRD))
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
