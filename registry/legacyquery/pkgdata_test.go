package legacyquery

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/operator-catalog/olmcat/internal/manifest"
)

// TestGVKParserDecodesEachValueOnce: a package read decodes each distinct
// olm.gvk value once, and a value that does not decode provides nothing
// however often it repeats.
func TestGVKParserDecodesEachValueOnce(t *testing.T) {
	p := gvkParser{}
	v := `{"group":"etcd.database.coreos.com","kind":"EtcdCluster","version":"v1beta2"}`
	want := manifest.GVK{Group: "etcd.database.coreos.com", Version: "v1beta2", Kind: "EtcdCluster"}
	for range 3 {
		g, ok := p.parse(v)
		assert.True(t, ok)
		assert.Equal(t, want, g)
		_, ok = p.parse(`{"group":`)
		assert.False(t, ok)
	}
	assert.Len(t, p, 2, "one entry per distinct value")
}
