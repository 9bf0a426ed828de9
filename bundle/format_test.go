package bundle_test

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"

	"github.com/operator-catalog/olmcat/bundle"
)

// TestMediaType: helm wins over a CSV, a CSV makes registry+v1, and a
// directory without regular files is ErrNoManifestFiles.
func TestMediaType(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files fstest.MapFS
		want  string
		err   error
	}{
		{"registry+v1", fstest.MapFS{"m/a.yaml": {Data: []byte("kind: ConfigMap\n")}, "m/b.yaml": {Data: []byte("kind: ClusterServiceVersion\n")}}, bundle.MediaTypeRegistryV1, nil},
		{"helm", fstest.MapFS{"m/Chart.yaml": {Data: []byte("name: x\n")}, "m/b.yaml": {Data: []byte("kind: ClusterServiceVersion\n")}}, bundle.MediaTypeHelm, nil},
		{"plain", fstest.MapFS{"m/a.yaml": {Data: []byte("kind: ConfigMap\n")}}, bundle.MediaTypePlain, nil},
		{"empty", fstest.MapFS{"m/sub/a.yaml": {Data: []byte("kind: ConfigMap\n")}}, "", bundle.ErrNoManifestFiles},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := bundle.MediaType(tc.files, "m")
			assert.ErrorIs(t, err, tc.err)
			assert.Equal(t, tc.want, got)
		})
	}
}
